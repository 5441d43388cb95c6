import { resolve } from 'node:path';
import { credentialsIn } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import { EngineError, conflict, invalidField } from '../errors.js';
import { ENVIRONMENTS } from '../schema-types.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { runInThread } from './in-thread.js';
import type { ExportPlan, ExportProgress, ExportReport } from './export-walk.js';
import type { ExportPeriod } from './period.js';

/**
 * The period export (docs/record.md), as the CLI and the API's background
 * work start it. The caller's engine settles what needs its ports (the
 * tenant, the environment, the credentials from its secret store, its
 * clock); the walk (export-walk.ts) then runs in a worker thread of its
 * own (in-thread.ts says why).
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
  return runInThread<ExportReport, ExportProgress>(
    {
      task: 'export',
      plan,
      dataDir: engine.dataDir,
      ...(engine.databaseUrl && { databaseUrl: engine.databaseUrl }),
      ...(engine.restartSignal && { restartSignal: engine.restartSignal }),
    },
    options.onProgress,
  );
}
