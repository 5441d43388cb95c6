import { createHash, randomUUID } from 'node:crypto';
import { openEngine } from '../../../../src/engine/engine.js';
import type { Engine } from '../../../../src/engine/engine-types.js';
import { issueEcf } from '../../../../src/engine/ecf/issue.js';
import { invoice31, seedIssuer } from '../../../helpers.js';

/**
 * A store as the release before migration 0017 left it, on the data dir's
 * store (SQLite, or PostgreSQL through its database-url file): e-CF issued
 * with compression off (raw XML, and RFCE for type 32 under DOP 250,000),
 * and a row of every other table that keeps documents, written with plain
 * SQL as that release wrote them (raw bytes, the hex digest where it kept one).
 * `damaged`: one approval whose bytes no longer match its kept digest.
 */
export interface RawDocument {
  readonly table: string;
  readonly column: string;
  readonly id: string;
  readonly encf: string | null;
  readonly bytes: Buffer;
}

export interface RawStore {
  readonly tenantId: string;
  /** A consultor API key of the tenant, for reading its e-CF over HTTP. */
  readonly key: string;
  readonly ecfIds: readonly string[];
  /** Every document stored, as stored (the damaged one with the bytes it holds). */
  readonly documents: readonly RawDocument[];
  readonly damaged: RawDocument | null;
}

const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export async function makeRawStore(dataDir: string, options: { ecf?: number; damaged?: boolean } = {}): Promise<RawStore> {
  const engine = await openEngine({ dataDir, compressDocuments: false });
  try {
    return await fill(engine, options.ecf ?? 12, options.damaged ?? false);
  } finally {
    await engine.close();
  }
}

async function fill(engine: Engine, count: number, withDamaged: boolean): Promise<RawStore> {
  const { tenant, keys } = await seedIssuer(engine);
  const ecfIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const payload =
      i % 3 === 2
        ? { ...invoice31({ internalNumber: `FAC-${i}` }), type: 32, buyer: undefined, payment: { condition: '1', methods: [{ type: '1', amount: '100.00' }] } }
        : invoice31({ internalNumber: `FAC-${i}` });
    ecfIds.push((await issueEcf(engine, tenant.id, { idempotencyKey: `raw-${i}`, payload })).ecf.id);
  }
  const rows = await engine.db.selectFrom('ecf_documents').innerJoin('ecf', 'ecf.store_key', 'ecf_documents.ecf_key').select(['ecf.id', 'ecf.encf', 'ecf_documents.xml', 'ecf_documents.rfce_xml']).execute();
  const documents: RawDocument[] = [];
  for (const r of rows) {
    documents.push({ table: 'ecf_documents', column: 'xml', id: r.id, encf: r.encf, bytes: r.xml });
    if (r.rfce_xml) documents.push({ table: 'ecf_documents', column: 'rfce_xml', id: r.id, encf: r.encf, bytes: r.rfce_xml });
  }
  if (!documents.some((d) => d.column === 'rfce_xml')) throw new Error('no RFCE was issued: the raw store must hold one');
  // Signed bytes to stand for the other kinds: what matters here is that each row keeps its own.
  const other = (tag: string) => Buffer.from(rows[0]!.xml.toString('utf8').replace('<ECF', `<!--${tag}--><ECF`), 'utf8');
  const now = new Date().toISOString();
  const ecf0 = rows[0]!;
  const annulment = { id: randomUUID(), xml: other('anecf') };
  await engine.db.insertInto('annulments').values({
    id: annulment.id, tenant_id: tenant.id, environment: 'test', reason: 'prueba', status: 'voided', total_count: 1, xml: annulment.xml, xml_sha256: hex(annulment.xml),
    taxauth_code: null, taxauth_messages: '[]', last_error: null, attempts: 1, sending_until: null, submitted_at: now, voided_at: now, created_at: now, updated_at: null,
  }).execute();
  documents.push({ table: 'annulments', column: 'xml', id: annulment.id, encf: null, bytes: annulment.xml });
  const received = { id: randomUUID(), xml: other('received'), arecf: other('arecf') };
  await engine.db.insertInto('received_ecf').values({
    id: received.id, tenant_id: tenant.id, environment: 'test', status: 'received', reason_code: null, reason: null, issuer_rnc: '101010101', issuer_name: 'Proveedor SRL',
    buyer_rnc: tenant.rnc, encf: 'E310000000777', type: 31, issue_date: '2026-03-01', monto_total: '100.00', security_code: 'ABC123', file_name: null,
    xml: received.xml, xml_sha256: hex(received.xml), arecf_xml: received.arecf, arecf_sha256: null, received_at: now,
  }).execute();
  documents.push({ table: 'received_ecf', column: 'xml', id: received.id, encf: 'E310000000777', bytes: received.xml });
  documents.push({ table: 'received_ecf', column: 'arecf_xml', id: received.id, encf: 'E310000000777', bytes: received.arecf });
  const approval = { id: randomUUID(), xml: other('acecf') };
  // The damaged one: its bytes changed after the digest was kept (a bit gone bad on disk).
  const approvalStored = withDamaged ? Buffer.from(approval.xml.toString('utf8').replace('<!--acecf-->', '<!--acecF-->'), 'utf8') : approval.xml;
  await engine.db.insertInto('received_ecf_approvals').values({
    id: approval.id, received_ecf_id: received.id, tenant_id: tenant.id, decision: 'accepted', rejection_reason: null, xml: approvalStored, xml_sha256: hex(approval.xml),
    decided_at: now, issuer_delivery: '{}', taxauth_delivery: '{}',
  }).execute();
  const damaged = withDamaged ? { table: 'received_ecf_approvals', column: 'xml', id: approval.id, encf: 'E310000000777', bytes: approvalStored } : null;
  if (!withDamaged) documents.push({ table: 'received_ecf_approvals', column: 'xml', id: approval.id, encf: 'E310000000777', bytes: approval.xml });
  const inbound = { id: randomUUID(), xml: other('inbound') };
  await engine.db.insertInto('inbound_approvals').values({
    id: inbound.id, tenant_id: tenant.id, ecf_id: ecf0.id, encf: ecf0.encf, buyer_rnc: '101010101', decision: 'accepted', rejection_reason: null,
    approved_at_text: '01-03-2026 10:00:00', xml: inbound.xml, xml_sha256: hex(inbound.xml), received_at: now,
  }).execute();
  documents.push({ table: 'inbound_approvals', column: 'xml', id: inbound.id, encf: ecf0.encf, bytes: inbound.xml });
  const caseRow = { id: randomUUID(), xml: other('case') };
  await engine.db.insertInto('certification_cases').values({
    id: caseRow.id, tenant_id: tenant.id, paso: 2, generation: 1, sheet: 'ECF', row_number: 2, case_id: 'c1', kind: 'ecf31', encf: 'E310000000901',
    modifies_encf: null, cells: '{}', state: 'accepted', xml: caseRow.xml, xml_sha256: null, security_code: null, track_id: null, messages: null, sent_at: now, verdict_at: now, updated_at: now,
  }).execute();
  documents.push({ table: 'certification_cases', column: 'xml', id: caseRow.id, encf: 'E310000000901', bytes: caseRow.xml });
  return { tenantId: tenant.id, key: keys.consultor, ecfIds, documents, damaged };
}
