import { createHash, X509Certificate, type KeyObject } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { fromRowInstant } from '../clock.js';
import { taxauthOf } from '../ecf/views.js';
import { signingKey } from '../signing/xmldsig.js';
import type { Db } from '../store/database.js';
import { keptContextDecoder, type DocumentStore } from '../store/documents/index.js';
import { closingDataOf } from '../journal/closing-data.js';
import { JOURNAL_KINDS } from '../journal/kinds.js';
import { LedgerFiles } from './ledger-files.js';
import { documentFacts, ledgerRow, type Totals } from './ledger.js';
import { MANIFEST_NAME, ManifestWriter, type JournalPosition, type TypeCount } from './manifest.js';
import type { ExportPeriod } from './period.js';
import { ZipWriter } from './zip-writer.js';

/**
 * The walk of the period export (docs/record.md): one ZIP per tenant and
 * period with every signed document as stored, the ledger (CSV and XLSX) and
 * a signed manifest. Documents are read in keyset pages and written out as
 * they come, so memory does not grow with the period. Everything goes to
 * `<file>.partial` (and side files beside it); only a finished, fsynced
 * archive is renamed to `<file>`. It runs in a thread of its own
 * (export-thread.ts): it needs only a connection and the plan the caller's
 * engine settled (export-period.ts).
 */

export interface ExportProgress {
  readonly phase: 'issued' | 'annulments' | 'received' | 'approvals' | 'ledger' | 'manifest';
  readonly documents: number;
}

export interface ExportReport {
  readonly file: string;
  readonly tenantId: string;
  readonly environment: string;
  readonly from: string;
  readonly to: string;
  readonly files: number;
  readonly bytes: number;
  readonly issued: number;
  readonly received: number;
  readonly annulments: number;
  readonly approvals: number;
  readonly journal: JournalPosition | null;
}

/** What the caller's engine settles before the walk, all of it cloneable into a worker thread. */
export interface ExportPlan {
  readonly tenant: { readonly id: string; readonly rnc: string; readonly legalName: string };
  readonly key: number;
  readonly environment: string;
  readonly period: ExportPeriod;
  readonly file: string;
  /** The export's instant (the caller's clock): the manifest's createdAt and the ZIP's entry times. */
  readonly nowMs: number;
  /** The tenant's active certificate (DER) and its private key, which signs the manifest. */
  readonly credentials: { readonly certificateDer: Buffer; readonly privateKey: KeyObject };
  /** Documents per page read from the store. */
  readonly pageSize: number;
}

/** What the walk reads through: a connection and the documents' reader. */
export interface ExportStore {
  readonly db: Db;
  readonly documents: Pick<DocumentStore, 'read'>;
}

export const CERTIFICATE_NAME = 'certificate.pem';

/** The journal's last entry before the period's end, and the month's closing entry (closing.month) when there is one. */
async function journalPosition(db: Db, key: number, period: ExportPeriod): Promise<JournalPosition | null> {
  const last = await db.selectFrom('journal').select(['seq', 'link']).where('tenant_key', '=', key).where('at', '<', period.endMs).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  if (!last) return null;
  let closing: string | null = null;
  if (period.month !== null) {
    const closings = await db.selectFrom('journal').select(['seq', 'data']).where('tenant_key', '=', key).where('kind', '=', JOURNAL_KINDS['closing.month']).orderBy('seq', 'desc').limit(1000).execute();
    // Read through the closing's schema: a damaged closing entry is named (Store.ColumnDamaged), not passed
    // over, since the export would then say the month has no closing. Its stored text is what the export carries.
    for (const c of closings) {
      if (closingDataOf(c.data, Number(c.seq)).period === period.month) {
        closing = c.data;
        break;
      }
    }
  }
  return { seq: Number(last.seq), link: Buffer.from(last.link).toString('hex'), closing };
}

const countsOf = (section: string, totals: Totals): TypeCount[] =>
  [...totals.byType.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([type, t]) => ({ section, type, count: t.count, total: t.total.toFixed(2), itbis: t.itbis.toFixed(2) }));

/** Safe inside a ZIP name: what a store column gives is never trusted to be a plain token. */
const token = (v: string | null | undefined): string => (v ?? '').replace(/[^0-9A-Za-z_-]/g, '_') || '_';

export async function writeExport(store: ExportStore, plan: ExportPlan, onProgress?: (p: ExportProgress) => void): Promise<ExportReport> {
  const { db } = store;
  const { tenant, key, environment, period, file, credentials } = plan;
  const tenantId = tenant.id;
  const partial = `${file}.partial`;
  const side = { manifest: `${partial}.manifest`, issued: `${partial}.issued.csv`, received: `${partial}.received.csv`, xlsx: `${partial}.xlsx` };
  const pageSize = plan.pageSize;
  const now = new Date(plan.nowMs);
  const certificate = new X509Certificate(credentials.certificateDer);
  const zip = new ZipWriter(partial, now);
  const manifest = new ManifestWriter(side.manifest, {
    tenantId: tenant.id, rnc: tenant.rnc, legalName: tenant.legalName, environment, from: period.from, to: period.to, createdAt: now.toISOString(),
    certificateSha256: createHash('sha256').update(certificate.raw).digest('hex'),
  });
  const counts = { issued: 0, received: 0, annulments: 0, approvals: 0 };
  let documents = 0;
  const add = (name: string, bytes: Buffer) => {
    manifest.file(zip.addBuffer(name, bytes));
    documents++;
  };
  const progress = (phase: ExportProgress['phase']) => onProgress?.({ phase, documents });
  // One kept decompression context for the whole walk (as `ecf store verify` reads): a context per
  // document is native memory the garbage collector does not see, and the export's RSS would grow.
  const decoder = keptContextDecoder();
  const read = (blob: Buffer, digest: Buffer | string | null, ref: { table: string; column: string; id: string; encf?: string | null }) => store.documents.read(db, blob, digest, ref, decoder);
  const ledger = new LedgerFiles(side);
  try {
    const startIso = new Date(period.startMs).toISOString();
    const endIso = new Date(period.endMs).toISOString();

    ledger.begin('issued');
    for (let after = { at: period.startMs - 1, k: 0 }; ;) {
      const { rows } = await sql<{ k: number; at: number; id: string; encf: string; status: string; taxauth: string | null; environment: string; document_hash: string; xml: Buffer; xml_sha256: Buffer | null; rfce_xml: Buffer | null; rfce_sha256: Buffer | null }>`
        select e.store_key as k, e.issued_at as at, e.id, e.encf, e.status, e.taxauth, e.environment, e.document_hash, d.xml, d.xml_sha256, d.rfce_xml, d.rfce_sha256
        from ecf e join ecf_documents d on d.ecf_key = e.store_key
        where e.tenant_key = ${key} and e.environment = ${environment} and e.issued_at >= ${period.startMs} and e.issued_at < ${period.endMs}
          and (e.issued_at > ${after.at} or (e.issued_at = ${after.at} and e.store_key > ${after.k}))
        order by e.issued_at, e.store_key limit ${sql.lit(pageSize)}`.execute(db);
      for (const r of rows) {
        const ref = { table: 'ecf_documents', id: r.id, encf: r.encf };
        const xml = await read(r.xml, r.xml_sha256 ?? r.document_hash, { ...ref, column: 'xml' });
        const rfce = r.rfce_xml === null ? null : await read(r.rfce_xml, r.rfce_sha256, { ...ref, column: 'rfce_xml' });
        const base = `issued/${token(tenant.rnc)}/${token(r.encf)}`;
        add(`${base}.xml`, xml);
        if (rfce) add(`${base}.rfce.xml`, rfce);
        const facts = documentFacts(xml);
        const taxauth = taxauthOf(r.taxauth);
        ledger.add(facts, ledgerRow(facts, 'issued', { at: fromRowInstant(Number(r.at)), status: r.status, verdict: taxauth?.status ?? '', trackId: taxauth?.trackId ?? '', environment: r.environment }));
        counts.issued++;
      }
      progress('issued');
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1]!;
      after = { at: Number(last.at), k: Number(last.k) };
    }

    for (let after = { at: '', id: '' }; ;) {
      const rows = await db.selectFrom('annulments').select(['id', 'created_at', 'xml', 'xml_sha256'])
        .where('tenant_id', '=', tenantId).where('environment', '=', environment).where('created_at', '>=', startIso).where('created_at', '<', endIso)
        .where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '>', after.id)])]))
        .orderBy('created_at').orderBy('id').limit(pageSize).execute();
      for (const r of rows) {
        add(`annulments/${token(r.id)}.xml`, await read(r.xml, r.xml_sha256, { table: 'annulments', column: 'xml', id: r.id }));
        counts.annulments++;
      }
      progress('annulments');
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1]!;
      after = { at: last.created_at, id: last.id };
    }

    ledger.begin('received');
    for (let after = { at: '', id: '' }; ;) {
      const rows = await db.selectFrom('received_ecf').select(['id', 'received_at', 'status', 'environment', 'issuer_rnc', 'encf', 'xml', 'xml_sha256', 'arecf_xml', 'arecf_sha256'])
        .where('tenant_id', '=', tenantId).where('environment', '=', environment).where('received_at', '>=', startIso).where('received_at', '<', endIso)
        .where((eb) => eb.or([eb('received_at', '>', after.at), eb.and([eb('received_at', '=', after.at), eb('id', '>', after.id)])]))
        .orderBy('received_at').orderBy('id').limit(pageSize).execute();
      const answers = rows.length === 0 ? [] : await db.selectFrom('received_ecf_approvals').select(['id', 'received_ecf_id', 'xml', 'xml_sha256'])
        .where('received_ecf_id', 'in', rows.map((r) => r.id)).orderBy('decided_at').orderBy('id').execute();
      for (const r of rows) {
        const ref = { table: 'received_ecf', id: r.id, encf: r.encf };
        const xml = await read(r.xml, r.xml_sha256, { ...ref, column: 'xml' });
        const arecf = await read(r.arecf_xml, r.arecf_sha256, { ...ref, column: 'arecf_xml' });
        // Refusals may repeat an e-NCF: they are kept under their own id, apart, and are not in the ledger.
        const base = r.status === 'received' ? `received/${token(r.issuer_rnc)}/${token(r.encf)}` : `received/refused/${token(r.id)}`;
        add(`${base}.xml`, xml);
        add(`${base}.arecf.xml`, arecf);
        let n = 0;
        for (const a of answers.filter((x) => x.received_ecf_id === r.id)) {
          add(`${base}.acecf${n++ === 0 ? '' : `-${n}`}.xml`, await read(a.xml, a.xml_sha256, { table: 'received_ecf_approvals', column: 'xml', id: a.id, encf: r.encf }));
        }
        if (r.status === 'received') {
          const facts = documentFacts(xml);
          ledger.add(facts, ledgerRow(facts, 'received', { at: r.received_at, status: r.status, verdict: '', trackId: '', environment: r.environment }));
        }
        counts.received++;
      }
      progress('received');
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1]!;
      after = { at: last.received_at, id: last.id };
    }

    for (let after = { at: '', id: '' }; ;) {
      // An approval is of the environment of the e-CF it answers.
      const rows = await db.selectFrom('inbound_approvals as a').innerJoin('ecf as e', 'e.id', 'a.ecf_id')
        .select(['a.id', 'a.received_at', 'a.encf', 'a.buyer_rnc', 'a.xml', 'a.xml_sha256'])
        .where('a.tenant_id', '=', tenantId).where('e.environment', '=', environment).where('a.received_at', '>=', startIso).where('a.received_at', '<', endIso)
        .where((eb) => eb.or([eb('a.received_at', '>', after.at), eb.and([eb('a.received_at', '=', after.at), eb('a.id', '>', after.id)])]))
        .orderBy('a.received_at').orderBy('a.id').limit(pageSize).execute();
      for (const r of rows) {
        add(`approvals/${token(r.encf)}.${token(r.buyer_rnc)}.acecf.xml`, await read(r.xml, r.xml_sha256, { table: 'inbound_approvals', column: 'xml', id: r.id, encf: r.encf }));
        counts.approvals++;
      }
      progress('approvals');
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1]!;
      after = { at: last.received_at, id: last.id };
    }

    progress('ledger');
    await ledger.finish(now);
    manifest.file(await zip.addFile('ledger-issued.csv', side.issued));
    manifest.file(await zip.addFile('ledger-received.csv', side.received));
    manifest.file(await zip.addFile('ledger.xlsx', side.xlsx));
    manifest.file(zip.addBuffer(CERTIFICATE_NAME, Buffer.from(certificate.toString(), 'utf8')));

    progress('manifest');
    const journal = await journalPosition(db, key, period);
    manifest.finish([...countsOf('issued', ledger.totals.issued), ...countsOf('received', ledger.totals.received)], journal, signingKey(credentials.privateKey, certificate));
    await zip.addFile(MANIFEST_NAME, side.manifest);
    await zip.finish();
    const files = zip.entries;
    const bytes = zip.written;
    renameSync(partial, file);
    return { file, tenantId, environment, from: period.from, to: period.to, files, bytes, ...counts, journal };
  } catch (e) {
    zip.abandon();
    manifest.abandon();
    ledger.abandon();
    rmSync(partial, { force: true });
    throw e;
  } finally {
    for (const f of Object.values(side)) rmSync(f, { force: true });
  }
}
