import { onTestFinished } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { prepareDocument } from '../../../src/engine/documents/prepare.js';
import { signEcf, type SignedEcf } from '../../../src/engine/documents/sign-ecf.js';
import type { Issuer } from '../../../src/engine/documents/ecf-xml.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import { ENVIRONMENT_SEGMENT } from '../../../src/engine/taxauth/environments.js';
import { TokenCache } from '../../../src/engine/taxauth/token-cache.js';
import { TaxauthClient } from '../../../src/engine/taxauth/client.js';
import { ENVIRONMENTS } from '../../../src/engine/schema-types.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

/** A sandbox on 127.0.0.1, closed after the test. */
export async function sandbox(clock?: ManualClock): Promise<RunningSandbox> {
  const running = await startSandbox({ host: '127.0.0.1', port: 0, ...(clock && { clock }) });
  onTestFinished(() => running.close());
  return running;
}

/** Points every environment's URLs of the engine at the sandbox. */
export async function pointAt(engine: Engine, url: string, timeoutMs?: number): Promise<void> {
  for (const env of ENVIRONMENTS) {
    await setSetting(engine, `taxauth.url.${env}`, `${url}/${ENVIRONMENT_SEGMENT[env]}`);
    await setSetting(engine, `taxauth.fc_url.${env}`, `${url}/${ENVIRONMENT_SEGMENT[env]}`);
  }
  if (timeoutMs !== undefined) await setSetting(engine, 'taxauth.timeout_ms', timeoutMs);
}

/**
 * An engine and a sandbox sharing one manual clock, a tenant with a
 * certificate and ranges, the URLs set to the sandbox, and a fresh token cache.
 */
export async function world(options: { timeoutMs?: number } = {}) {
  const clock = new ManualClock('2026-03-10T14:00:00.000Z');
  const engine = await testEngine(clock);
  const box = await sandbox(clock);
  await pointAt(engine, box.url, options.timeoutMs);
  const { tenant } = await seedIssuer(engine);
  const cache = new TokenCache();
  const client = new TaxauthClient({ baseUrl: `${box.url}/testecf`, fcUrl: `${box.url}/testecf`, timeoutMs: options.timeoutMs ?? 5_000 });
  const token = () => cache.token(engine, tenant.id, 'test');
  return { clock, engine, sandbox: box, control: box.control, tenant, cache, client, token };
}

/** An e-CF signed by the engine's own signer with the tenant's certificate, as the issuing path signs it. */
export async function signedEcf(
  engine: Engine,
  tenant: { id: string; rnc: string },
  encf: string,
  payload: Record<string, unknown> = invoice31(),
): Promise<SignedEcf> {
  const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: '2026-03-10' });
  if (outcome.errors.length) throw new Error(JSON.stringify(outcome.errors));
  const doc = outcome.document!;
  const credentials = await signingCredentials(engine, tenant.id);
  const issuer: Issuer = {
    rnc: tenant.rnc,
    legalName: 'Ferretería Ñoño SRL',
    tradeName: 'Ferretería Ñoño',
    address: 'Calle El Conde 12',
    municipality: '010100',
    province: '010000',
    phones: ['809-555-1234'],
    email: 'caja@ferreteria.do',
    economicActivity: 'Venta de herramientas',
  };
  const type = doc.type;
  return signEcf({
    document: doc,
    computed: doc.computed,
    issuer,
    numbering: { encf, sequenceExpiresOn: type === 32 || type === 34 ? null : '2027-12-31' },
    key: signingKey(credentials.privateKey, credentials.certificate),
    environment: 'test',
    now: engine.clock.now(),
  });
}

/** A type-32 consumer invoice under DOP 250,000: it travels as an RFCE. */
export const consumer32 = () => ({
  type: 32,
  incomeType: '01',
  payment: { condition: '1' },
  lines: [{ name: 'Refresco 2L', quantity: 2, unitPrice: '95.00' }],
});

/** Collects what would have been logged (pino-style logger). */
export function captureLogger() {
  const lines: string[] = [];
  const write = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
  };
  return { lines, logger: { info: write('info'), warn: write('warn') } };
}

export type { SignedEcf };
