import type { KeyObject, X509Certificate } from 'node:crypto';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, conflict, notFound, type FieldError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import type { CertificatesTable } from '../store/schema.js';
import { prepared } from '../store/prepared.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { appendJournal } from '../journal/append.js';
import { emitted } from '../tenants/views.js';
import { inspectCertificate } from './inspect.js';
import { readPkcs12 } from './pkcs12.js';
import type { CertificateStatus, CertificateView } from './schemas.js';

/** Real .p12 files are a few kilobytes; anything near this is not one. */
export const MAX_CERTIFICATE_FILE_BYTES = 64 * 1024;

type Row = Selectable<CertificatesTable>;

/** The certificate that signs: the newest upload that is unrevoked and valid now. */
function signingRow(rows: readonly Row[], now: Date): Row | undefined {
  const at = now.toISOString();
  return [...rows]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .find((r) => !r.revoked_at && r.not_before <= at && at < r.not_after);
}

function statusOf(row: Row, signing: Row | undefined, now: Date): CertificateStatus {
  if (row.revoked_at) return 'revoked';
  if (now.toISOString() >= row.not_after) return 'expired';
  return signing?.id === row.id ? 'active' : 'superseded';
}

function view(row: Row, tenantRnc: string, signing: Row | undefined, now: Date): CertificateView {
  const warnings: string[] = [];
  if (row.holder_id !== tenantRnc) {
    warnings.push(
      row.holder_id
        ? `The certificate belongs to ${row.holder_id}, not to the tenant's RNC ${tenantRnc}: the authority accepts its signatures only if that person is delegated as signer (Firmante) for the RNC.`
        : `The certificate's subject carries no RNC or cédula; the authority accepts its signatures only if its holder is delegated as signer for RNC ${tenantRnc}.`,
    );
  }
  return {
    id: row.id,
    tenantId: row.tenant_id,
    subject: {
      text: row.subject,
      commonName: row.subject_cn,
      serialNumber: row.subject_serial_number,
      holderId: row.holder_id,
    },
    issuer: row.issuer,
    serialNumber: row.serial_number,
    fingerprintSha256: row.fingerprint_sha256,
    keyBits: row.key_bits,
    notBefore: toDominicanIso(row.not_before),
    notAfter: toDominicanIso(row.not_after),
    status: statusOf(row, signing, now),
    warnings,
    secretStore: row.secret_store as SecretStoreKind,
    createdAt: toDominicanIso(row.created_at),
    revokedAt: emitted(row.revoked_at),
  };
}

// Read by every request that issues: answered from memory until the store changes. Which one
// signs (valid now, not revoked) is decided from the rows on each call.
const tenantRows_ = prepared(
  (db, p: { tenantId: string }) =>
    db.selectFrom('certificates').selectAll().where('tenant_id', '=', p.tenantId).orderBy('created_at', 'desc').orderBy('id', 'desc'),
  { reuseUntilCommit: true },
);
const tenantRows = (db: Db, tenantId: string): Promise<Row[]> => tenantRows_(db, { tenantId });

/** Views of a tenant's certificates, newest first, with status as of now. */
export async function listCertificates(engine: Engine, tenantId: string): Promise<CertificateView[]> {
  const tenant = await requireTenant(engine.db, tenantId);
  const rows = await tenantRows(engine.db, tenantId);
  const now = engine.clock.now();
  const signing = signingRow(rows, now);
  return rows.map((r) => view(r, tenant.rnc, signing, now));
}

export async function getCertificate(engine: Engine, tenantId: string, id: string): Promise<CertificateView> {
  const found = (await listCertificates(engine, tenantId)).find((c) => c.id === id);
  if (!found) throw notFound('Certificate');
  return found;
}

export interface CertificateUpload {
  readonly file?: Buffer | undefined;
  readonly password?: string | undefined;
}

interface StoredSecret {
  readonly p12: string;
  readonly password: string;
}

/**
 * Accepts a .p12/.pfx for the tenant: opens it with the password, checks the
 * key and validity, keeps the file and password in the secret store and the
 * public facts in the database. Uploading a certificate the tenant already
 * has returns that record; one it revoked is refused.
 */
export async function uploadCertificate(engine: Engine, tenantId: string, upload: CertificateUpload): Promise<CertificateView> {
  const missing: FieldError[] = [];
  if (!upload.file || upload.file.length === 0) missing.push({ path: 'file', code: 'ObjectRequiredProperty', message: 'is required: the .p12/.pfx file' });
  if (upload.password === undefined) missing.push({ path: 'password', code: 'ObjectRequiredProperty', message: 'is required (send an empty value for a file without password)' });
  if (missing.length > 0) throw new ValidationError(missing);
  const file = upload.file!;
  const password = upload.password!;
  if (file.length > MAX_CERTIFICATE_FILE_BYTES) {
    throw new EngineError('too_large', 'Certificate.FileTooLarge', `The file has ${file.length} bytes; a certificate file has at most ${MAX_CERTIFICATE_FILE_BYTES}.`);
  }

  await requireTenant(engine.db, tenantId);
  const { certificate, privateKey } = readPkcs12(file, password);
  const facts = inspectCertificate(certificate, privateKey, engine.clock.now());

  const existing = await engine.db
    .selectFrom('certificates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('fingerprint_sha256', '=', facts.fingerprintSha256)
    .executeTakeFirst();
  if (existing) return alreadyUploaded(engine, tenantId, existing);

  // The secret is written before the row (the keychain is outside the database) and removed if the row is not.
  const id = newId();
  const store = await engine.secrets.current();
  const secretRef = `certificate/${id}`;
  const secret: StoredSecret = { p12: file.toString('base64'), password };
  await store.put(secretRef, Buffer.from(JSON.stringify(secret)));
  try {
    await inTransaction(engine.db, async (tx) => {
      await tx
        .insertInto('certificates')
        .values({
          id,
          tenant_id: tenantId,
          subject: facts.subject,
          subject_cn: facts.subjectCommonName,
          subject_serial_number: facts.subjectSerialNumber,
          holder_id: facts.holderId,
          issuer: facts.issuer,
          serial_number: facts.serialNumber,
          fingerprint_sha256: facts.fingerprintSha256,
          key_bits: facts.keyBits,
          not_before: facts.notBefore.toISOString(),
          not_after: facts.notAfter.toISOString(),
          secret_store: store.kind,
          secret_ref: secretRef,
          created_at: engine.clock.now().toISOString(),
          revoked_at: null,
        })
        .execute();
      appendJournal(tx, engine.clock.now(), {
        tenantKey: await tenantKey(tx, tenantId),
        kind: 'certificate.imported',
        ref: id,
        digest: fingerprintBytes(facts.fingerprintSha256),
        data: facts.serialNumber,
      });
    });
  } catch (e) {
    await store.delete(secretRef).catch(() => undefined);
    const raced = await engine.db
      .selectFrom('certificates')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('fingerprint_sha256', '=', facts.fingerprintSha256)
      .executeTakeFirst();
    if (raced) return alreadyUploaded(engine, tenantId, raced);
    throw e;
  }
  return getCertificate(engine, tenantId, id);
}

/** The certificate's SHA-256 fingerprint (hex, with or without colons) as the entry's digest. */
const fingerprintBytes = (fingerprint: string): Buffer => Buffer.from(fingerprint.replace(/:/g, ''), 'hex');

async function alreadyUploaded(engine: Engine, tenantId: string, row: Row): Promise<CertificateView> {
  if (row.revoked_at) {
    throw conflict('Certificate.Revoked', `This certificate (${row.id}) was revoked and can never sign again; upload a new one.`);
  }
  return getCertificate(engine, tenantId, row.id);
}

/** Revokes for good: the certificate never signs again. Revoking twice keeps the first time. */
export async function revokeCertificate(engine: Engine, tenantId: string, id: string): Promise<CertificateView> {
  await requireTenant(engine.db, tenantId);
  const row = isUuid(id)
    ? await engine.db.selectFrom('certificates').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Certificate');
  if (!row.revoked_at) {
    const now = engine.clock.now();
    await inTransaction(engine.db, async (tx) => {
      await tx.updateTable('certificates').set({ revoked_at: now.toISOString() }).where('id', '=', id).execute();
      appendJournal(tx, now, { tenantKey: await tenantKey(tx, tenantId), kind: 'certificate.revoked', ref: id, digest: fingerprintBytes(row.fingerprint_sha256), data: row.serial_number });
    });
    credentials.delete(id);
  }
  return getCertificate(engine, tenantId, id);
}

export interface SigningCredentials {
  readonly certificateId: string;
  readonly certificate: X509Certificate;
  readonly privateKey: KeyObject;
}

/** Opened certificates by id; a certificate's bytes never change, only whether it may sign. */
const credentials = new Map<string, Promise<SigningCredentials>>();

/**
 * The key and certificate that sign for the tenant now, or a conflict naming
 * why there is none. Opened once per process and kept in memory.
 */
export async function signingCredentials(engine: Engine, tenantId: string): Promise<SigningCredentials> {
  await requireTenant(engine.db, tenantId);
  return credentialsIn(engine, engine.db, tenantId);
}

/**
 * signingCredentials for a tenant the caller has just read, with the rows
 * read through the caller's connection. A certificate not yet opened by
 * this process is opened here too: once per certificate and process.
 */
export async function credentialsIn(engine: Engine, db: Db, tenantId: string): Promise<SigningCredentials> {
  const row = signingRow(await tenantRows(db, tenantId), engine.clock.now());
  if (!row) {
    throw conflict('Certificate.NoneActive', 'The tenant has no valid, unrevoked certificate to sign with; upload one.');
  }
  let opened = credentials.get(row.id);
  if (!opened) {
    opened = openStored(engine, row);
    credentials.set(row.id, opened);
    opened.catch(() => credentials.delete(row.id));
  }
  return opened;
}

async function openStored(engine: Engine, row: Row): Promise<SigningCredentials> {
  const raw = await engine.secrets.of(row.secret_store as SecretStoreKind).get(row.secret_ref);
  if (!raw) {
    throw new EngineError('unavailable', 'Certificate.SecretMissing', `The secret store (${row.secret_store}) no longer holds certificate ${row.id}; upload it again.`);
  }
  const { p12, password } = JSON.parse(raw.toString('utf8')) as StoredSecret;
  const { certificate, privateKey } = readPkcs12(Buffer.from(p12, 'base64'), password);
  return { certificateId: row.id, certificate, privateKey };
}
