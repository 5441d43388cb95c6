import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { EngineError, conflict, invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { checkJsonColumn } from '../json-column.js';
import { ENVIRONMENTS, Nullable } from '../schema-types.js';
import { inTransaction } from '../store/database.js';
import type { ExportsTable } from '../store/schema.js';
import { requireTenant } from '../tenants/lookup.js';
import type { WorkOutcome } from '../work/run.js';
import { enqueue, type WorkItem } from '../work/queue.js';
import { exportPeriodFile } from './export-period.js';
import { exportPeriod } from './period.js';
import { EXPORTS_DIR, exportFilePath } from './paths.js';

/**
 * Exports asked for over the API (POST /api/v1/exports, an addition to the
 * contract): the request records a pending row and a work item in one
 * transaction; the background work runs the export into the data dir
 * (exports/<id>.zip); the row says pending, running, ready or failed (with
 * the reason). The store-clean job removes a finished one after
 * `exports.keep_days` (retention/rules.ts).
 */

export const EXPORT_KIND = 'export.run';

/** `work.payload` of an export's work item: the export it makes. */
const ExportWorkPayload = Type.Object({ id: Type.String() });

export const ExportRequestBody = Type.Object(
  {
    month: Type.Optional(Type.String({ description: 'A Dominican calendar month, yyyy-MM' })),
    environment: Type.Optional(Type.String({ description: "test, cert or production; the tenant's default environment when left out" })),
    from: Type.Optional(Type.String({ description: 'First day, yyyy-MM-dd (included)' })),
    to: Type.Optional(Type.String({ description: 'Last day, yyyy-MM-dd (included)' })),
  },
  { additionalProperties: false },
);

export const ExportJobView = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'pending, running, ready or failed' }),
  environment: Type.String(),
  from: Type.String(),
  to: Type.String(),
  reason: Nullable(Type.String({ description: 'Why it failed' })),
  bytes: Nullable(Type.Integer()),
  createdAt: Type.String(),
  finishedAt: Nullable(Type.String()),
  links: Type.Object({ self: Type.String(), file: Type.String() }),
});
export type ExportJobView = Static<typeof ExportJobView>;

function view(r: Selectable<ExportsTable>): ExportJobView {
  return {
    id: r.id,
    status: r.status,
    environment: r.environment,
    from: r.period_from,
    to: r.period_to,
    reason: r.reason,
    bytes: r.file_bytes === null ? null : Number(r.file_bytes),
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    links: { self: `/api/v1/exports/${r.id}`, file: `/api/v1/exports/${r.id}/file` },
  };
}

export async function requestExport(engine: Engine, tenantId: string, body: unknown): Promise<ExportJobView> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField('', 'Export.BodyObject', 'The body must be a JSON object with month, or from and to.');
  const input = body as Record<string, unknown>;
  for (const [field, value] of Object.entries(input)) {
    if (!['month', 'from', 'to', 'environment'].includes(field)) throw invalidField(field, 'Export.UnknownField', `${field} is not a field of an export request (month, or from and to; environment).`);
    if (typeof value !== 'string') throw invalidField(field, 'Export.NotText', `${field} must be text.`);
  }
  const { environment: asked, ...dates } = input as { month?: string; from?: string; to?: string; environment?: string };
  const period = exportPeriod(dates);
  const tenant = await requireTenant(engine.db, tenantId);
  const environment = asked ?? tenant.default_environment;
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw invalidField('environment', 'Export.Environment', `environment must be one of ${ENVIRONMENTS.join(', ')}.`);
  const now = engine.clock.now();
  const row: Selectable<ExportsTable> = {
    id: newId(), tenant_id: tenantId, environment, period_from: period.from, period_to: period.to, status: 'pending', reason: null, file_bytes: null, created_at: now.toISOString(), finished_at: null,
  };
  await inTransaction(engine.db, async (tx) => {
    await tx.insertInto('exports').values(row).execute();
    await enqueue(tx, now, { kind: EXPORT_KIND, tenantId, ref: row.id, payload: { id: row.id } satisfies Static<typeof ExportWorkPayload> });
  });
  return view(row);
}

async function rowOf(engine: Engine, tenantId: string, id: string): Promise<Selectable<ExportsTable>> {
  // Another tenant's export is not found, like any id this tenant does not own.
  const row = await engine.db.selectFrom('exports').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!row) throw notFound('Export');
  return row;
}

export const getExportJob = async (engine: Engine, tenantId: string, id: string): Promise<ExportJobView> => view(await rowOf(engine, tenantId, id));

/** The ZIP's path and size once ready; 409 before (or after it failed). */
export async function exportJobFile(engine: Engine, tenantId: string, id: string): Promise<{ path: string; bytes: number; name: string }> {
  const row = await rowOf(engine, tenantId, id);
  if (row.status !== 'ready') {
    throw conflict('Export.NotReady', row.status === 'failed' ? `This export failed and has no file: ${row.reason ?? 'no reason was kept'}.` : `This export is ${row.status}; its file is there once its status is ready.`);
  }
  const path = exportFilePath(engine, row.id);
  const bytes = (() => {
    try {
      return statSync(path).size;
    } catch {
      return null;
    }
  })();
  if (bytes === null) throw notFound('Export file', 'Export.FileGone');
  return { path, bytes, name: `export-${row.period_from}-${row.period_to}.zip` };
}

/** The work item: runs the export once; an export that cannot be made (no certificate, say) fails with its reason, not retried. */
export async function runExportHandler(engine: Engine, item: WorkItem): Promise<WorkOutcome> {
  const { id } = checkJsonColumn(ExportWorkPayload, item.payload, `work.payload of work item ${item.id}`);
  const row = await engine.db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.status === 'ready' || row.status === 'failed') return { done: true };
  await engine.db.updateTable('exports').set({ status: 'running' }).where('id', '=', id).execute();
  const path = exportFilePath(engine, id);
  mkdirSync(join(engine.dataDir, EXPORTS_DIR), { recursive: true, mode: 0o700 });
  let outcome: { status: 'ready'; bytes: number } | { status: 'failed'; reason: string };
  try {
    const report = await exportPeriodFile(engine, row.tenant_id, exportPeriod({ from: row.period_from, to: row.period_to }), path, { environment: row.environment });
    outcome = { status: 'ready', bytes: report.bytes };
  } catch (e) {
    if (!(e instanceof EngineError)) {
      // Not the request's fault (the disk, the store): tried again later, as any work.
      return { retryAt: new Date(engine.clock.now().getTime() + 60_000), error: (e as Error).message };
    }
    outcome = { status: 'failed', reason: `${e.code}: ${e.message}` };
    rmSync(path, { force: true });
  }
  await engine.db
    .updateTable('exports')
    .set({ status: outcome.status, reason: outcome.status === 'failed' ? outcome.reason : null, file_bytes: outcome.status === 'ready' ? outcome.bytes : null, finished_at: engine.clock.now().toISOString() })
    .where('id', '=', id)
    .execute();
  return { done: true };
}

