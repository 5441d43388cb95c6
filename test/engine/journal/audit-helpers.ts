import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Engine } from '../../../src/engine/engine-types.js';
import { GENESIS, linkOf, nextHash } from '../../../src/engine/journal/index.js';
import { STORE } from '../../helpers.js';

/** A second connection to the store, beside the engine's: what someone with the database file (or server) can do. */
export interface Raw {
  run(text: string, params?: unknown[]): Promise<void>;
  rows<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function rawStore(engine: Engine): Promise<Raw> {
  if (STORE === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(join(engine.dataDir, 'ecf.sqlite'));
    return {
      run: async (text, params = []) => void db.prepare(text).run(...params),
      rows: async <T>(text: string, params: unknown[] = []) => db.prepare(text).all(...params) as T[],
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: readFileSync(join(engine.dataDir, 'database-url'), 'utf8').trim() });
  await client.connect();
  const numbered = (text: string) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  return {
    run: async (text, params = []) => void (await client.query(numbered(text), params)),
    rows: async <T>(text: string, params: unknown[] = []) => (await client.query(numbered(text), params)).rows as T[],
    close: () => client.end(),
  };
}

interface Row {
  seq: number | string;
  at: number | string;
  kind: number | string;
  ecf_key: number | string | null;
  ref: string | null;
  digest: Buffer | null;
  data: string | null;
}

/** Recomputes every link and the head of a tenant's chain, as someone without the certificate's key could after an edit. */
export async function rewriteChain(raw: Raw, tenantKey: number): Promise<void> {
  const rows = await raw.rows<Row>('select seq, at, kind, ecf_key, ref, digest, data from journal where tenant_key = ? order by seq', [tenantKey]);
  let hash = GENESIS;
  for (const r of rows) {
    hash = nextHash(hash, { tenantKey, seq: Number(r.seq), at: Number(r.at), kind: Number(r.kind), ecfKey: r.ecf_key === null ? null : Number(r.ecf_key), ref: r.ref, digest: r.digest, data: r.data });
    await raw.run('update journal set link = ? where tenant_key = ? and seq = ?', [linkOf(hash), tenantKey, Number(r.seq)]);
  }
  await raw.run('update journal_heads set seq = ?, hash = ? where tenant_key = ?', [Number(rows.at(-1)!.seq), hash, tenantKey]);
}

/** The seq of the ecf.issued entry of the tenant's e-CF with this e-NCF: tests name an entry by what it records, not by where it fell. */
export async function issuedSeq(raw: Raw, tenantKey: number, encf: string): Promise<number> {
  const rows = await raw.rows<{ seq: number | string }>('select j.seq from journal j join ecf e on e.store_key = j.ecf_key where j.tenant_key = ? and j.kind = 4 and e.encf = ?', [tenantKey, encf]);
  if (rows.length !== 1) throw new Error(`${encf} has ${rows.length} ecf.issued entries`);
  return Number(rows[0]!.seq);
}

/** The seqs of the entries of these kinds (numbers) that name this ref, in order. */
export async function refSeqs(raw: Raw, tenantKey: number, ref: string, kinds: number[]): Promise<number[]> {
  const rows = await raw.rows<{ seq: number | string }>(`select seq from journal where tenant_key = ? and ref = ? and kind in (${kinds.map(() => '?').join(', ')}) order by seq`, [tenantKey, ref, ...kinds]);
  return rows.map((r) => Number(r.seq));
}

/** How many entries the tenant's journal holds, as the store has them. */
export async function entryCount(raw: Raw, tenantKey: number): Promise<number> {
  const [row] = await raw.rows<{ n: number | string }>('select count(*) as n from journal where tenant_key = ?', [tenantKey]);
  return Number(row!.n);
}

/** Deletes entries and closes the gaps (the later seqs move down), then rewrites the chain over them: a removal only the cross-checks can see. */
export async function removeEntries(raw: Raw, tenantKey: number, seqs: number[]): Promise<void> {
  for (const seq of [...seqs].sort((a, b) => b - a)) {
    await raw.run('delete from journal where tenant_key = ? and seq = ?', [tenantKey, seq]);
    // In two steps: PostgreSQL checks the primary key row by row.
    await raw.run('update journal set seq = seq + 1000000 where tenant_key = ? and seq > ?', [tenantKey, seq]);
    await raw.run('update journal set seq = seq - 1000001 where tenant_key = ? and seq > 1000000', [tenantKey]);
  }
  await rewriteChain(raw, tenantKey);
}
