import { existsSync } from 'node:fs';
// A tenant ready to issue, for benchmarks: what test/helpers.ts seedIssuer does,
// without vitest and without temporary files (the .p12 is built in memory by node-forge).
// Secrets go to the encrypted-file store in the data dir, never to the OS keychain.
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import forge from 'node-forge';
import { openEngine } from '../src/engine/engine.js';
import type { Engine } from '../src/engine/engine-types.js';
import { uploadCertificate } from '../src/engine/certificates/certificates.js';
import { addRange } from '../src/engine/sequences/ranges.js';
import { setSetting } from '../src/engine/settings/settings.js';
import { createTenantApiKey } from '../src/engine/tenants/api-keys.js';
import { setEmitterProfile } from '../src/engine/tenants/emitter-profile.js';
import { createTenant } from '../src/engine/tenants/tenants.js';

/** The engine functions seeding needs: from src/ (the default) or from a build in dist/. */
export interface EngineModules {
  openEngine: typeof openEngine;
  createTenant: typeof createTenant;
  setEmitterProfile: typeof setEmitterProfile;
  uploadCertificate: typeof uploadCertificate;
  addRange: typeof addRange;
  setSetting: typeof setSetting;
  createTenantApiKey: typeof createTenantApiKey;
}

export const srcModules: EngineModules = { openEngine, createTenant, setEmitterProfile, uploadCertificate, addRange, setSetting, createTenantApiKey };

/**
 * The same functions from dist/, for a data dir that the built CLI will open: its
 * migrations are the build's, which may differ from src/ while src/ is being worked on.
 */
/**
 * Whether `npm run build` has run: the engine compiled to dist/ and the CLI bundle bin/ecf.js loads.
 * (The benches once looked for dist/cli/commands.js, which the bundle of issue 25 removed, and so
 * skipped themselves silently.)
 */
export function isBuilt(root: string): boolean {
  return existsSync(join(root, 'dist', 'engine', 'engine.js')) && existsSync(join(root, 'dist', 'bundle', 'ecf.js'));
}

export async function distModules(root: string): Promise<EngineModules> {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', 'engine', path)).href) as Promise<Record<string, unknown>>;
  const [engine, tenants, profile, certificates, ranges, settings, keys] = await Promise.all(
    ['engine.js', 'tenants/tenants.js', 'tenants/emitter-profile.js', 'certificates/certificates.js', 'sequences/ranges.js', 'settings/settings.js', 'tenants/api-keys.js'].map(load),
  );
  return {
    openEngine: engine!.openEngine,
    createTenant: tenants!.createTenant,
    setEmitterProfile: profile!.setEmitterProfile,
    uploadCertificate: certificates!.uploadCertificate,
    addRange: ranges!.addRange,
    setSetting: settings!.setSetting,
    createTenantApiKey: keys!.createTenantApiKey,
  } as EngineModules;
}

/** A 2048-bit RSA key and a certificate valid from a year ago to a year ahead, as a 3DES .p12. */
export function benchP12(rnc: string, password: string): Buffer {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 365 * 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'BENCH SIGNER' }, { type: '2.5.4.5', value: `IDCDO-${rnc}` }]);
  cert.setIssuer([{ name: 'commonName', value: 'ECF BENCH CA' }]);
  cert.sign(key, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

export interface SeededIssuer {
  readonly tenantId: string;
  readonly rnc: string;
  /** An `emisor` API key. */
  readonly key: string;
}

/** Emitter profile, certificate, an emisor key and a type-31 range 1..rangeTo in `test`. */
export async function seedBenchIssuer(
  engine: Engine,
  options: { rangeTo?: number; rnc?: string } = {},
  { createTenant, setEmitterProfile, uploadCertificate, addRange, setSetting, createTenantApiKey }: EngineModules = srcModules,
): Promise<SeededIssuer> {
  await setSetting(engine, 'secrets.store', 'file');
  const rnc = options.rnc ?? '131234567';
  const tenant = await createTenant(engine, { rnc, legalName: 'Ferretería Ñoño & Hijos SRL', tradeName: 'Ferretería Ñoño' });
  await setEmitterProfile(engine, tenant.id, {
    address: 'Calle El Conde 12, Zona Colonial',
    municipality: '010100',
    province: '010000',
    phones: ['809-555-1234'],
    email: 'ventas@ferreteria.do',
    economicActivity: 'Venta de materiales de construcción',
  });
  const password = 'bench-clave';
  await uploadCertificate(engine, tenant.id, { file: benchP12(rnc, password), password });
  await addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: options.rangeTo ?? 10_000_000, expiresOn: '2027-12-31' });
  const { key } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor' });
  return { tenantId: tenant.id, rnc, key };
}
