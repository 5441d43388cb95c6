import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseJsonColumn } from '../json-column.js';
import type { EcfType } from '../documents/payload.js';
import { TYPE_NAMES } from '../documents/types.js';
import type { Environment } from '../schema-types.js';
import type { Db } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { AnnulmentLinesTable, AnnulmentsTable } from '../store/schema.js';
import { requireTenant } from '../tenants/lookup.js';
import type { AnnulmentView } from './schemas.js';

/** An annulment and its lines as stored, and as the API and the CLI show them. */

export type AnnulmentRow = Selectable<AnnulmentsTable>;
export type AnnulmentLineRow = Selectable<AnnulmentLinesTable>;

/** `annulments.taxauth_messages`: the authority's messages on its last answer. */
const TaxauthMessagesColumn = Type.Array(Type.String());

const INTERRUPTED = 'The send was interrupted before the authority’s answer was recorded (the process stopped); retry to send the same document again.';

/** A `sending` record whose send lease ran out belongs to a process that stopped mid-send: it reads as `failed`. */
export function annulmentView(row: AnnulmentRow, lines: readonly AnnulmentLineRow[], now: Date): AnnulmentView {
  const interrupted = row.status === 'sending' && row.sending_until !== null && now.toISOString() >= row.sending_until;
  return {
    id: row.id,
    environment: row.environment as Environment,
    reason: row.reason,
    status: interrupted ? 'failed' : row.status,
    totalCount: row.total_count,
    lines: [...lines]
      .sort((a, b) => a.position - b.position)
      .map((l) => ({
        type: l.type,
        series: l.series,
        rangeFrom: l.range_from,
        rangeTo: l.range_to,
        count: l.range_to - l.range_from + 1,
        typeName: TYPE_NAMES[l.type as EcfType],
      })),
    taxauthCode: row.taxauth_code,
    taxauthMessages: parseJsonColumn(TaxauthMessagesColumn, row.taxauth_messages, `annulments.taxauth_messages of ${row.id}`),
    lastError: interrupted ? INTERRUPTED : row.last_error,
    attempts: row.attempts,
    submittedAt: row.submitted_at ? toDominicanIso(row.submitted_at) : null,
    voidedAt: row.voided_at ? toDominicanIso(row.voided_at) : null,
    createdAt: toDominicanIso(row.created_at),
  };
}

export const linesOf = (db: Db, annulmentId: string): Promise<AnnulmentLineRow[]> =>
  db.selectFrom('annulment_lines').selectAll().where('annulment_id', '=', annulmentId).orderBy('position').execute();

/** GET /sequences/annulments: the tenant's annulments, newest first. */
export async function listAnnulments(engine: Engine, tenantId: string): Promise<AnnulmentView[]> {
  await requireTenant(engine.db, tenantId);
  const rows = await engine.db
    .selectFrom('annulments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const lines = await engine.db
    .selectFrom('annulment_lines')
    .innerJoin('annulments', 'annulments.id', 'annulment_lines.annulment_id')
    .selectAll('annulment_lines')
    .where('annulments.tenant_id', '=', tenantId)
    .execute();
  const byAnnulment = new Map<string, AnnulmentLineRow[]>();
  for (const l of lines) {
    const list = byAnnulment.get(l.annulment_id) ?? [];
    list.push(l);
    byAnnulment.set(l.annulment_id, list);
  }
  const now = engine.clock.now();
  return rows.map((r) => annulmentView(r, byAnnulment.get(r.id) ?? [], now));
}

/** The tenant's annulment `id` (locked when asked); another tenant's, or an id that is no UUID, is 404. */
export async function findAnnulment(db: Db, tenantId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<AnnulmentRow> {
  const query = db.selectFrom('annulments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  const row = isUuid(id) ? await (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst() : undefined;
  if (!row) throw notFound('Annulment');
  return row;
}

/** GET /sequences/annulments/{id}; another tenant's answers 404. */
export async function getAnnulment(engine: Engine, tenantId: string, id: string): Promise<AnnulmentView> {
  const row = await findAnnulment(engine.db, tenantId, id);
  return annulmentView(row, await linesOf(engine.db, row.id), engine.clock.now());
}
