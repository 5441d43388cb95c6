import { resolve } from 'node:path';
import { credentialsIn } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import { EngineError, conflict, invalidField } from '../errors.js';
import { siblingModule, startModuleWorker } from '../module-worker.js';
import { ENVIRONMENTS } from '../schema-types.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import type { ExportThreadData, ExportThreadMessage } from './export-thread.js';
import type { ExportPlan, ExportProgress, ExportReport } from './export-walk.js';
import type { ExportPeriod } from './period.js';

/**
 * The period export (docs/record.md), as the CLI and the API's background
 * work start it. The caller's engine settles what needs its ports (the
 * tenant, the environment, the credentials from its secret store, its
 * clock); the walk then runs in a worker thread of its own, for two reasons:
 * it is CPU-bound for minutes at a million e-CF and would hold `ecf serve`'s
 * event loop, and a thread's young generation can be bounded (V8 grows it
 * to 128 MB under the walk's allocation rate, which was most of the peak
 * RSS; docs/record.md has the figures).
 */

export type { ExportProgress, ExportReport } from './export-walk.js';

export interface ExportOptions {
  /** The environment exported (test, cert or production); the tenant's default environment unless given. An e-NCF may exist in each. */
  readonly environment?: string | undefined;
  readonly onProgress?: (p: ExportProgress) => void;
  /** Documents per page read from the store. */
  readonly pageSize?: number;
}

const PAGE = 200;

/** The walk's young generation, in MB: 16 keeps the scavenger's pauses short and its memory small; more buys no speed (docs/record.md). */
const YOUNG_GENERATION_MB = 16;

async function exportCredentials(engine: Engine, tenantId: string) {
  try {
    return await credentialsIn(engine, engine.db, tenantId);
  } catch (e) {
    if (e instanceof EngineError && e.code === 'Certificate.NoneActive') {
      throw conflict('Export.NoActiveCertificate', 'An export\'s manifest is signed with the tenant\'s active certificate (rule: every export is signed), and the tenant has no valid, unrevoked certificate: upload one, then export again.');
    }
    throw e;
  }
}

async function planExport(engine: Engine, tenantId: string, period: ExportPeriod, file: string, options: ExportOptions): Promise<ExportPlan> {
  const tenant = await requireTenant(engine.db, tenantId);
  const key = await tenantKey(engine.db, tenantId);
  const environment = options.environment ?? tenant.default_environment;
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw invalidField('environment', 'Export.Environment', `environment must be one of ${ENVIRONMENTS.join(', ')}.`);
  const credentials = await exportCredentials(engine, tenantId);
  return {
    tenant: { id: tenant.id, rnc: tenant.rnc, legalName: tenant.legal_name },
    key,
    environment,
    period,
    file: resolve(file),
    nowMs: engine.clock.now().getTime(),
    credentials: { certificateDer: credentials.certificate.raw, privateKey: credentials.privateKey },
    pageSize: options.pageSize ?? PAGE,
  };
}

export async function exportPeriodFile(engine: Engine, tenantId: string, period: ExportPeriod, file: string, options: ExportOptions = {}): Promise<ExportReport> {
  const plan = await planExport(engine, tenantId, period, file, options);
  const workerData: ExportThreadData = {
    plan,
    dataDir: engine.dataDir,
    ...(engine.databaseUrl && { databaseUrl: engine.databaseUrl }),
    ...(engine.restartSignal && { restartSignal: engine.restartSignal }),
  };
  const worker = startModuleWorker(siblingModule(import.meta.url, 'export-thread'), { workerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  return new Promise<ExportReport>((done, fail) => {
    let answer: ExportThreadMessage | undefined;
    worker.on('message', (m: ExportThreadMessage) => {
      if ('progress' in m) options.onProgress?.(m.progress);
      else answer = m;
    });
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (answer && 'report' in answer) return done(answer.report);
      if (answer && 'error' in answer) {
        const e = answer.error;
        if (e.kind && e.code) return fail(new EngineError(e.kind, e.code, e.message));
        return fail(Object.assign(new Error(e.message), e.stack && { stack: e.stack }));
      }
      fail(new Error(`The export's thread ended (code ${code}) without a report.`));
    });
  });
}
