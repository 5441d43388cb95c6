// A store as a release before migration 0017 left it: one tenant and `rows` e-CF whose signed
// XML (and RFCE) sit raw in ecf_documents, ecf.document_hash their hex SHA-256, the new digest
// columns null. Documents come from bench/corpus/pool.ts (10,000 distinct signed documents) with
// each row's own e-NCF written into its bytes, so no two rows store the same bytes. Written by a
// second better-sqlite3 connection on the engine's file, as bench/list-million.bench.ts loads.
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { toRowInstant } from '../src/engine/clock.js';
import { createTenant } from '../src/engine/tenants/tenants.js';
import { documentPool } from './corpus/pool.js';

const BATCH = 10_000;

export interface RawStore {
  readonly tenantId: string;
  /** Bytes of the signed documents written (XML and RFCE). */
  readonly documentBytes: number;
  readonly seconds: number;
}

/** The pool document's e-NCF replaced by the row's own (same length: E, the type, ten digits). */
function withEncf(bytes: Buffer, from: string, to: string): Buffer {
  return Buffer.from(bytes.toString('latin1').split(from).join(to), 'latin1');
}

export async function loadRawStore(dataDir: string, rows: number, onProgress?: (done: number) => void): Promise<RawStore> {
  const engine = await openEngine({ dataDir, compressDocuments: false });
  const tenant = await createTenant(engine, { rnc: '131234567', legalName: 'Supermercado Ñoño SRL' });
  await engine.close();
  const pool = documentPool();
  const loader = new SQLite(join(dataDir, DATABASE_FILE));
  loader.pragma('journal_mode = OFF');
  loader.pragma('synchronous = OFF');
  const insertEcf = loader.prepare(`insert into ecf (store_key, id, tenant_key, environment, type, encf, status, issue_date, issued_at, signed_at, security_code, qr_url,
    submits_rfce, signed_during_contingency, monto_total, monto_total_cents, document_hash, idempotency_key, request_hash, fingerprint)
    values (?, ?, ?, 'production', ?, ?, 'accepted', ?, ?, ?, ?, '', ?, 0, ?, ?, ?, ?, '', '')`);
  const insertDocument = loader.prepare('insert into ecf_documents (ecf_key, xml, rfce_xml) values (?, ?, ?)');
  const tenantKey = loader.prepare('select store_key from tenants where id = ?').pluck().get(tenant.id) as number;
  const counters = new Map<number, number>();
  let documentBytes = 0;
  const start = Date.parse('2026-01-01T12:00:00Z');
  const batch = loader.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const d = pool[i % pool.length]!;
      const seq = (counters.get(d.type) ?? 0) + 1;
      counters.set(d.type, seq);
      const encf = `E${d.type}${String(seq).padStart(10, '0')}`;
      const xml = withEncf(d.xml, d.encf, encf);
      const rfce = d.rfce && withEncf(d.rfce, d.encf, encf);
      const at = new Date(start + i * 1000).toISOString();
      const cents = 10_000 + ((i * 7919) % 5_000_000);
      const id = randomUUID();
      insertEcf.run(i + 1, id, tenantKey, d.type, encf, at.slice(0, 10), toRowInstant(at), null, encf.slice(-6), rfce ? 1 : 0, (cents / 100).toFixed(2), cents, createHash('sha256').update(xml).digest('hex'), id);
      insertDocument.run(i + 1, xml, rfce);
      documentBytes += xml.length + (rfce?.length ?? 0);
    }
  });
  const t = performance.now();
  for (let from = 0; from < rows; from += BATCH) {
    batch(from, Math.min(from + BATCH, rows));
    onProgress?.(Math.min(from + BATCH, rows));
  }
  loader.pragma('journal_mode = WAL');
  loader.close();
  return { tenantId: tenant.id, documentBytes, seconds: (performance.now() - t) / 1000 };
}
