import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import {
  getCertificate,
  listCertificates,
  revokeCertificate,
  signingCredentials,
  uploadCertificate,
  MAX_CERTIFICATE_FILE_BYTES,
} from '../../../src/engine/certificates/certificates.js';
import { emitCertificateNotices } from '../../../src/engine/certificates/notices.js';
import { readPkcs12 } from '../../../src/engine/certificates/pkcs12.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { EngineError, ValidationError } from '../../../src/engine/errors.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import { openEngine } from '../../../src/engine/engine.js';
import { makeEcP12, makeIdentity, makeP12 } from '../../certs.js';
import { STORE, seedTenant, storedBytes, tempDir, testEngine } from '../../helpers.js';

async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

const DAY = 86_400_000;

describe('reading .p12 files', () => {
  const identity = makeIdentity({ serialNumber: 'IDCDO-00112345678' });
  it.each([
    ['OpenSSL 3 default (PBES2/AES-256, SHA-256 MAC)', 'openssl-default' as const],
    ['OpenSSL legacy (3DES key, RC2-40 certificates, SHA-1 MAC)', 'openssl-legacy' as const],
    ['node-forge (3DES)', 'forge' as const],
  ])('opens %s with a password that has ñ', (_label, format) => {
    const password = format === 'forge' ? 'clave-sin-eñe'.replace('ñ', 'n') : 'contraseña ñandú';
    const contents = readPkcs12(makeP12(identity, password, format), password);
    expect(contents.certificate.toString()).toBe(identity.certPem.replace(/\r\n/g, '\n'));
    expect(contents.certificate.checkPrivateKey(contents.privateKey)).toBe(true);
  });

  it('finds the certificate of the key even when it is not the first certificate in the file', () => {
    const other = makeIdentity({ commonName: 'OTRO' });
    const mine = makeIdentity({ commonName: 'MIO' });
    const key = (readPkcs12(makeP12(mine, 'x'), 'x')).privateKey;
    // forge writes the certificates in the order given: the other one first
    const asn1 = forge.pkcs12.toPkcs12Asn1(
      forge.pki.privateKeyFromPem(mine.keyPem),
      [forge.pki.certificateFromPem(other.certPem), forge.pki.certificateFromPem(mine.certPem)],
      'x',
      { algorithm: '3des', generateLocalKeyId: false },
    );
    const file = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    const contents = readPkcs12(file, 'x');
    expect(contents.certificate.subject).toContain('CN=MIO');
    expect(contents.others.map((c) => c.subject)).toEqual([expect.stringContaining('CN=OTRO')]);
    expect(contents.certificate.checkPrivateKey(key)).toBe(true);
  });
});

describe('uploading certificates', () => {
  it('records the public facts, keeps nothing secret in the database, and signs with it', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const identity = makeIdentity({ serialNumber: `IDCDO-${tenant.rnc}`, notAfter: new Date('2026-12-31T23:59:59Z') });
    const password = 'contraseña-secreta-ñ';
    const file = makeP12(identity, password, 'openssl-default');
    const view = await uploadCertificate(engine, tenant.id, { file, password });
    expect(view).toMatchObject({
      tenantId: tenant.id,
      subject: { commonName: 'ANA PÉREZ', serialNumber: `IDCDO-${tenant.rnc}`, holderId: tenant.rnc },
      warnings: [],
      issuer: 'CN=ECF TEST CA, O=Pruebas',
      keyBits: 2048,
      status: 'active',
      notAfter: '2026-12-31T19:59:59.000-04:00',
      revokedAt: null,
    });
    expect(view.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const credentials = await signingCredentials(engine, tenant.id);
    expect(credentials.certificateId).toBe(view.id);
    expect(credentials.certificate.fingerprint256).toBe(view.fingerprintSha256);

    const dbBytes = await storedBytes(engine);
    expect(dbBytes.indexOf(file)).toBe(-1);
    expect(dbBytes.indexOf(file.subarray(100, 164))).toBe(-1);
    expect(dbBytes.indexOf(Buffer.from(password))).toBe(-1);
    expect(dbBytes.indexOf(file.toString('base64').slice(40, 100))).toBe(-1);
    expect(dbBytes.indexOf(Buffer.from(view.id))).toBeGreaterThan(-1); // the record itself is there
  });

  it('reads the RNC or cédula of the subject and warns, without refusing, when it is not the tenant’s', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const delegated = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ serialNumber: 'IDCDO-00112345678' }), 'p'), password: 'p' });
    expect(delegated.subject.holderId).toBe('00112345678');
    expect(delegated.warnings).toEqual([expect.stringContaining(`not to the tenant's RNC ${tenant.rnc}`)]);
    engine.clock.advance(1000);
    const own = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ serialNumber: `RNC ${tenant.rnc}` }), 'p'), password: 'p' });
    expect(own.subject.holderId).toBe(tenant.rnc);
    expect(own.warnings).toEqual([]);
  });

  it.each([
    ['not a PKCS#12 file (PEM text)', () => ({ file: Buffer.from(makeIdentity().certPem), password: 'x' }), 'Certificate.NotPkcs12', 'not a PKCS#12'],
    ['random bytes', () => ({ file: Buffer.from('0\u0003\u0002\u0001', 'binary'), password: 'x' }), 'Certificate.NotPkcs12', 'not a PKCS#12'],
    ['the wrong password (default format)', () => ({ file: makeP12(makeIdentity(), 'contraseña'), password: 'contrasena' }), 'Certificate.WrongPassword', 'password does not open'],
    ['the wrong password (legacy format)', () => ({ file: makeP12(makeIdentity(), 'right', 'openssl-legacy'), password: 'wrong' }), 'Certificate.WrongPassword', 'password does not open'],
    ['no private key', () => ({ file: makeP12(makeIdentity(), 'p', 'openssl-nokeys'), password: 'p' }), 'Certificate.NoPrivateKey', 'no private key'],
    ['a key that does not match the certificate', () => {
      const stranger = makeIdentity();
      return { file: makeP12({ keyPem: stranger.keyPem, certPem: makeIdentity().certPem }, 'p', 'forge'), password: 'p' };
    }, 'Certificate.KeyMismatch', 'does not match'],
    ['an EC key', () => ({ file: makeEcP12('p'), password: 'p' }), 'Certificate.NotRsa', 'requires RSA'],
    ['an RSA key of 1024 bits', () => ({ file: makeP12(makeIdentity({ bits: 1024 }), 'p'), password: 'p' }), 'Certificate.KeyTooShort', '1024 bits'],
    ['an expired certificate', () => ({ file: makeP12(makeIdentity({ notBefore: new Date('2024-01-01Z'), notAfter: new Date('2025-01-01Z') }), 'p'), password: 'p' }), 'Certificate.Expired', 'expired on 2025-01-01'],
    ['a certificate not yet valid', () => ({ file: makeP12(makeIdentity({ notBefore: new Date('2026-06-01Z') }), 'p'), password: 'p' }), 'Certificate.NotYetValid', 'not valid before 2026-06-01'],
  ])('refuses %s with a clear error and stores nothing', async (_label, make, code, words) => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const error = await rejection(uploadCertificate(engine, tenant.id, make()));
    expect(error.code).toBe(code);
    expect(error.kind).toBe('validation');
    expect(error.message).toContain(words);
    expect(await listCertificates(engine, tenant.id)).toEqual([]);
  });

  it('names every missing part at once, and refuses files larger than a certificate can be', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const missing = await rejection(uploadCertificate(engine, tenant.id, {}));
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).errors.map((e) => e.path)).toEqual(['file', 'password']);
    const big = await rejection(uploadCertificate(engine, tenant.id, { file: Buffer.alloc(MAX_CERTIFICATE_FILE_BYTES + 1, 1), password: '' }));
    expect(big).toMatchObject({ kind: 'too_large', code: 'Certificate.FileTooLarge' });
  });

  it('returns the existing record for a certificate uploaded twice, and refuses one that was revoked', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const file = makeP12(makeIdentity(), 'p');
    const first = await uploadCertificate(engine, tenant.id, { file, password: 'p' });
    const again = await uploadCertificate(engine, tenant.id, { file, password: 'p' });
    expect(again.id).toBe(first.id);
    expect(await listCertificates(engine, tenant.id)).toHaveLength(1);
    await revokeCertificate(engine, tenant.id, first.id);
    const refused = await rejection(uploadCertificate(engine, tenant.id, { file, password: 'p' }));
    expect(refused).toMatchObject({ kind: 'conflict', code: 'Certificate.Revoked' });
  });
});

describe('which certificate signs', () => {
  it('is the newest unrevoked valid one; revoked ones never sign again; expired ones stop', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const none = await rejection(signingCredentials(engine, tenant.id));
    expect(none).toMatchObject({ kind: 'conflict', code: 'Certificate.NoneActive' });

    const older = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ notAfter: new Date('2026-12-01Z') }), 'p'), password: 'p' });
    engine.clock.advance(60_000);
    const newer = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ notAfter: new Date('2026-04-01Z') }), 'p'), password: 'p' });
    expect((await signingCredentials(engine, tenant.id)).certificateId).toBe(newer.id);
    expect((await getCertificate(engine, tenant.id, older.id)).status).toBe('superseded');
    expect((await getCertificate(engine, tenant.id, newer.id)).status).toBe('active');

    const revoked = await revokeCertificate(engine, tenant.id, newer.id);
    expect(revoked.status).toBe('revoked');
    expect(revoked.revokedAt).toBe('2026-03-10T10:01:00.000-04:00');
    expect((await signingCredentials(engine, tenant.id)).certificateId).toBe(older.id);
    expect((await getCertificate(engine, tenant.id, older.id)).status).toBe('active');
    engine.clock.advance(60_000);
    expect((await revokeCertificate(engine, tenant.id, newer.id)).revokedAt).toBe(revoked.revokedAt);

    engine.clock.set('2026-12-01T00:00:00Z');
    expect((await getCertificate(engine, tenant.id, older.id)).status).toBe('expired');
    expect(await rejection(signingCredentials(engine, tenant.id))).toMatchObject({ code: 'Certificate.NoneActive' });
  });

  it('keeps tenants apart: another tenant’s certificate is not found', async () => {
    const engine = await testEngine();
    const a = await seedTenant(engine);
    const b = await seedTenant(engine);
    const cert = await uploadCertificate(engine, a.tenant.id, { file: makeP12(makeIdentity(), 'p'), password: 'p' });
    expect(await rejection(getCertificate(engine, b.tenant.id, cert.id))).toMatchObject({ kind: 'not_found' });
    expect(await rejection(revokeCertificate(engine, b.tenant.id, cert.id))).toMatchObject({ kind: 'not_found' });
    expect((await getCertificate(engine, a.tenant.id, cert.id)).status).toBe('active');
    expect(await rejection(signingCredentials(engine, b.tenant.id))).toMatchObject({ code: 'Certificate.NoneActive' });
  });
});

describe('secret stores', () => {
  it('keeps the file and password in encrypted files (0600, key outside the database) when told to', async () => {
    const engine = await testEngine();
    await setSetting(engine, 'secrets.store', 'file');
    const { tenant } = await seedTenant(engine);
    const password = 'contraseña';
    const file = makeP12(makeIdentity(), password);
    const view = await uploadCertificate(engine, tenant.id, { file, password });
    expect(view.secretStore).toBe('file');
    const { readdirSync, statSync } = await import('node:fs');
    expect(statSync(join(engine.dataDir, 'secret-store.key')).mode & 0o777).toBe(0o600);
    let sealed: Buffer[];
    if (engine.dialect === 'sqlite') {
      const dir = join(engine.dataDir, 'secrets');
      const files = readdirSync(dir);
      for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
      sealed = files.map((f) => readFileSync(join(dir, f)));
    } else {
      sealed = (await engine.db.selectFrom('sealed_secrets').select('body').execute()).map((r) => Buffer.from(r.body));
    }
    expect(sealed).toHaveLength(1);
    expect(sealed[0]!.indexOf(Buffer.from(password))).toBe(-1);
    expect(sealed[0]!.indexOf(file.toString('base64').slice(0, 60))).toBe(-1);
    expect((await signingCredentials(engine, tenant.id)).certificateId).toBe(view.id);
  });

  it.runIf(STORE === 'postgres')('opens a certificate sealed through one node on another node holding the same key, and not on one without it', async () => {
    const engine = await testEngine();
    await setSetting(engine, 'secrets.store', 'file');
    const { tenant } = await seedTenant(engine);
    const view = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity(), 'clave'), password: 'clave' });
    const { copyFileSync } = await import('node:fs');
    const node = async (withKey: boolean) => {
      const dataDir = tempDir();
      copyFileSync(join(engine.dataDir, 'database-url'), join(dataDir, 'database-url'));
      if (withKey) copyFileSync(join(engine.dataDir, 'secret-store.key'), join(dataDir, 'secret-store.key'));
      return openEngine({ dataDir, clock: engine.clock });
    };
    const second = await node(true);
    const stranger = await node(false);
    try {
      // Through the store itself: opened credentials are cached per process, and these "nodes" share one.
      const { secret_ref } = await engine.db.selectFrom('certificates').select('secret_ref').where('id', '=', view.id).executeTakeFirstOrThrow();
      expect(JSON.parse((await second.secrets.of('file').get(secret_ref))!.toString('utf8'))).toMatchObject({ password: 'clave' });
      // A node without the key refuses, rather than making a key of its own that opens nothing (issue 32, point 9).
      await expect(stranger.secrets.of('file').get(secret_ref)).rejects.toMatchObject({ code: 'SecretStore.KeyMissing' });
      expect(existsSync(join(stranger.dataDir, 'secret-store.key'))).toBe(false);
    } finally {
      await second.close();
      await stranger.close();
    }
  });

  const keychain = process.env.ECF_IN_KEYRING_SESSION || process.env.ECF_REQUIRE_KEYCHAIN;
  // Needs a Secret Service session: skipped outside scripts/with-keyring.sh (which sets ECF_IN_KEYRING_SESSION).
  it.runIf(keychain)('stores and reads back through the Secret Service keychain (skipped outside scripts/with-keyring.sh)', async () => {
    const { KeychainStore } = await import('../../../src/engine/secrets/keychain-store.js');
    const { keychainAvailable } = await import('../../../src/engine/secrets/select.js');
    expect(await keychainAvailable()).toBe(true);
    const engine = await testEngine();
    await setSetting(engine, 'secrets.store', 'keychain');
    const { tenant } = await seedTenant(engine);
    const view = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity(), 'ñ'), password: 'ñ' });
    expect(view.secretStore).toBe('keychain');
    const raw = await new KeychainStore().get(`certificate/${view.id}`);
    expect(JSON.parse(raw!.toString('utf8'))).toMatchObject({ password: 'ñ' });
    // a second engine over the same data (a new process, say) opens it from the keychain
    const { openEngine } = await import('../../../src/engine/engine.js');
    const second = await openEngine({ dataDir: engine.dataDir, clock: engine.clock });
    try {
      expect((await signingCredentials(second, tenant.id)).certificate.fingerprint256).toBe(view.fingerprintSha256);
    } finally {
      await second.close();
    }
  });
});

describe('expiry notices', () => {
  it('tells 90, 30, 15 and 7 days before expiry once each, then the expiry once', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const notAfter = new Date('2026-09-01T04:00:00Z');
    const cert = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ notAfter }), 'p'), password: 'p' });
    const at = (daysBefore: number) => engine.clock.set(new Date(notAfter.getTime() - daysBefore * DAY + 3_600_000));
    const told = async () => (await emitCertificateNotices(engine)).map((e) => `${e.type}:${(e.data.object as { threshold?: number }).threshold ?? '-'}`);

    at(120);
    expect(await told()).toEqual([]);
    at(90);
    expect(await told()).toEqual(['certificate.expiring:90']);
    expect(await told()).toEqual([]);
    at(45);
    expect(await told()).toEqual([]);
    at(30);
    expect(await told()).toEqual(['certificate.expiring:30']);
    at(15);
    expect(await told()).toEqual(['certificate.expiring:15']);
    at(7);
    expect(await told()).toEqual(['certificate.expiring:7']);
    at(1);
    expect(await told()).toEqual([]);
    engine.clock.set(new Date(notAfter.getTime() + 1000));
    expect(await told()).toEqual(['certificate.expired:-']);
    engine.clock.advance(30 * DAY);
    expect(await told()).toEqual([]);

    const events = await listEvents(engine.db, { tenantId: tenant.id });
    expect(events.map((e) => e.type)).toEqual([
      'certificate.expiring', 'certificate.expiring', 'certificate.expiring', 'certificate.expiring', 'certificate.expired',
    ]);
    expect(events[0]!.data.object).toMatchObject({ id: cert.id, daysUntilExpiry: 89, threshold: 90, status: 'active' });
    expect(events[4]!.data.object).toMatchObject({ id: cert.id, status: 'expired' });
  });

  it('gives a certificate uploaded late only the tightest notice, and says nothing of a superseded or revoked one', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    engine.clock.set('2026-06-10T12:00:00Z');
    const late = await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ notAfter: new Date('2026-06-30T12:00:00Z') }), 'p'), password: 'p' });
    expect((await emitCertificateNotices(engine)).map((e) => (e.data.object as { threshold: number }).threshold)).toEqual([30]);
    engine.clock.advance(1000);
    await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ notAfter: new Date('2027-06-30T12:00:00Z') }), 'p'), password: 'p' });
    engine.clock.set('2026-07-01T00:00:00Z'); // the late one expired, but a newer one signs
    expect(await emitCertificateNotices(engine)).toEqual([]);
    expect((await getCertificate(engine, tenant.id, late.id)).status).toBe('expired');
  });
});
