import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { DATABASE_URL_FILE } from '../../../src/engine/data-dir.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { uploadCertificate } from '../../../src/engine/certificates/certificates.js';
import { receiveEcf } from '../../../src/engine/reception/receive.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { buildApp } from '../../../src/http/app.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { SANDBOX_TAXPAYER_RNC, makeForeignApproval, makeForeignEcf, makeTaxpayerIdentity } from '../../../src/sandbox/taxpayer.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { createOrganizationApiKey, createTenantApiKey } from '../../../src/engine/tenants/api-keys.js';
import { setEmitterProfile } from '../../../src/engine/tenants/emitter-profile.js';
import { createOrganization } from '../../../src/engine/tenants/organizations.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import { TEST_SERVER_URL, createFromTemplate, databaseUrl, dropDatabase } from '../../postgres.js';
import { emitterProfile, invoice31 } from '../../fixtures/payloads.js';

/** The tenant's RNC: its certificate (made by the caller) names it. */
export const WORLD_RNC = '130000022';


/**
 * One small store per fuzz file, seeded once: an organization with a tenant
 * ready to issue (profile, certificate, ranges), an issued e-CF, a received
 * e-CF, an annulment and webhook endpoints, so every route has a real object
 * to reach. The authority is the sandbox on loopback (every environment), and
 * a canary server records any request a hostile document might make.
 */
export interface FuzzWorld {
  readonly engine: Engine & { clock: ManualClock };
  readonly app: Awaited<ReturnType<typeof buildApp>>;
  readonly tenantId: string;
  readonly tenantRnc: string;
  readonly organizationId: string;
  readonly keys: { readonly admin: string; readonly organization: string };
  /** Real object ids, by the path parameter family that names them. */
  readonly ids: {
    readonly ecf: string;
    readonly certificate: string;
    readonly webhook: string;
    readonly receivedEcf: string;
    readonly annulment: string;
  };
  /** Valid signed documents for the receiver routes. */
  readonly documents: {
    /** A fresh signed e-CF to the tenant, with its e-NCF; a new one each call. */
    readonly ecf: () => { xml: string; encf: string; fileName: string };
    /** A signed ACECF over the tenant's issued e-CF. */
    readonly acecf: string;
    readonly acecfFileName: string;
    /** Signs a seed document as the sandbox taxpayer. */
    readonly signSeed: (seedXml: string) => string;
  };
  /** The canary: any hit means a document made the server fetch something. */
  readonly canary: { readonly url: string; readonly hits: () => string[] };
  /** A file whose content must never show up in an answer or in the store. */
  readonly secretFile: { readonly path: string; readonly token: string };
  /** A .p12 and its password, for the upload route. */
  readonly p12: { readonly file: Buffer; readonly password: string };
  readonly close: () => Promise<void>;
}

/**
 * `p12` is a certificate for WORLD_RNC (test/certs.ts makes one; it needs
 * vitest, and this module also runs in the child process of the wire test).
 */
export async function buildWorld(p12: { file: Buffer; password: string }): Promise<FuzzWorld> {
  const closers: (() => Promise<unknown> | unknown)[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-fuzz-'));
  closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (TEST_SERVER_URL) {
    const server = TEST_SERVER_URL;
    const name = await createFromTemplate(server);
    closers.push(() => dropDatabase(server, name));
    writeFileSync(join(dataDir, DATABASE_URL_FILE), databaseUrl(server, name) + '\n', { mode: 0o600 });
  }
  const clock = new ManualClock('2026-03-10T14:00:00.000Z');
  const engine = (await openEngine({ dataDir, clock })) as Engine & { clock: ManualClock };
  closers.push(() => engine.close());

  const sandbox = await startSandbox({ clock });
  closers.push(() => sandbox.close());
  for (const env of ['test', 'cert', 'production'] as const) {
    const path = { test: 'testecf', cert: 'certecf', production: 'ecf' }[env];
    await setSetting(engine, `taxauth.url.${env}`, `${sandbox.url}/${path}`);
    await setSetting(engine, `taxauth.fc_url.${env}`, `${sandbox.url}/${path}`);
  }
  await setSetting(engine, 'taxauth.timeout_ms', 2000);
  await setSetting(engine, 'webhooks.development_mode', true);
  await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);

  const canaryHits: string[] = [];
  const canary = createServer((req, res) => {
    canaryHits.push(`${req.method} ${req.url}`);
    res.end('<!ENTITY leak "FETCHED">');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  closers.push(() => closeServer(canary));
  const canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;

  const secretToken = `SECRET-${randomBytes(8).toString('hex')}`;
  const secretPath = join(dataDir, 'secret.txt');
  writeFileSync(secretPath, `${secretToken}\n`);

  const { organization, owner } = await createOrganization(engine, { name: 'Contadores Unidos', plan: 'office', owner: { name: 'Ana Pérez' } });
  const tenant = await createTenant(engine, { rnc: WORLD_RNC, legalName: 'Ferretería Ñoño SRL', tradeName: 'Ferretería Ñoño', organizationId: organization.id });
  const tenantId = tenant.id;
  await setEmitterProfile(engine, tenantId, emitterProfile);
  const adminKey = (await createTenantApiKey(engine, { tenantId, role: 'admin_tenant' })).key;
  const orgKey = (await createOrganizationApiKey(engine, { organizationId: organization.id, memberId: owner.id })).key;
  await uploadCertificate(engine, tenantId, { file: p12.file, password: p12.password });
  for (const type of [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]) {
    await addRange(engine, { tenantId, environment: 'test', type, rangeFrom: 1, rangeTo: 1_000_000, expiresOn: type === 32 || type === 34 ? null : '2035-12-31' });
  }
  await setSetting(engine, 'duplicates.mode', 'off', tenantId);

  const issued = (await issueEcf(engine, tenantId, { idempotencyKey: 'fuzz-seed-1', payload: invoice31() })).ecf;
  // A second certificate, the one the upload route's id names.
  const certificate = await uploadCertificate(engine, tenantId, { file: p12.file, password: p12.password });
  const webhook = await createWebhook(engine, tenantId, { url: 'http://127.0.0.1:9/hook', events: ['*'] });

  const identity = makeTaxpayerIdentity(clock.now());
  let foreignSequence = 0;
  const foreignEcf = () => {
    const encf = `E31${String(++foreignSequence).padStart(10, '0')}`;
    const made = makeForeignEcf(identity, clock.now(), { buyerRnc: WORLD_RNC, encf });
    return { xml: made.xml, encf, fileName: `${SANDBOX_TAXPAYER_RNC}${encf}.xml` };
  };
  const first = foreignEcf();
  const received = await receiveEcf(engine, tenantId, { xml: Buffer.from(first.xml), fileName: first.fileName });
  const annulment = await annulSequences(engine, tenantId, {
    environment: 'test',
    reason: 'Números dañados',
    lines: [{ type: 31, series: 'E', rangeFrom: 999_990, rangeTo: 999_999 }],
  });
  const acecf = makeForeignApproval(identity, clock.now(), {
    issuerRnc: WORLD_RNC,
    encf: issued.encf,
    issueDate: issued.issueDate,
    montoTotal: Number(issued.montoTotal).toFixed(2),
    decision: 'accepted',
  });
  const { signSeed } = await import('../../../src/engine/taxauth/token-cache.js');

  const app = await buildApp({ engine });
  closers.push(() => app.close());

  return {
    engine,
    app,
    tenantId,
    tenantRnc: WORLD_RNC,
    organizationId: organization.id,
    keys: { admin: adminKey, organization: orgKey },
    ids: { ecf: issued.id, certificate: certificate.id, webhook: webhook.endpoint.id, receivedEcf: received.received.id, annulment: annulment.id },
    documents: {
      ecf: foreignEcf,
      acecf,
      acecfFileName: `${SANDBOX_TAXPAYER_RNC}${issued.encf}.xml`,
      signSeed: (seedXml) => signSeed(seedXml, identity.key),
    },
    canary: { url: canaryUrl, hits: () => [...canaryHits] },
    secretFile: { path: secretPath, token: secretToken },
    p12,
    close: async () => {
      while (closers.length) await closers.pop()!();
    },
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
