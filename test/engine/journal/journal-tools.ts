import { expect } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { GENESIS, kindName, linkOf, nextHash } from '../../../src/engine/journal/index.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';

export interface Entry {
  readonly seq: number;
  readonly kind: string;
  readonly ecfKey: number | null;
  readonly ref: string | null;
  readonly digest: string | null;
  readonly data: string | null;
}

/**
 * A tenant's journal, recomputed from genesis: every link and the head must
 * match, and seq runs 1..n without a gap. Returns the entries with kind names.
 */
export async function wholeJournal(engine: Pick<Engine, 'db'>, tenantId: string): Promise<Entry[]> {
  const key = await tenantKey(engine.db, tenantId);
  return wholeJournalOf(engine, key);
}

export async function wholeJournalOf(engine: Pick<Engine, 'db'>, key: number): Promise<Entry[]> {
  const rows = await engine.db.selectFrom('journal').selectAll().where('tenant_key', '=', key).orderBy('seq').execute();
  let hash = GENESIS;
  const out: Entry[] = [];
  rows.forEach((e, i) => {
    expect(Number(e.seq), `seq of entry ${i + 1}`).toBe(i + 1);
    const ecfKey = e.ecf_key === null ? null : Number(e.ecf_key);
    hash = nextHash(hash, { tenantKey: key, seq: Number(e.seq), at: Number(e.at), kind: Number(e.kind), ecfKey, ref: e.ref, digest: e.digest, data: e.data });
    expect(Buffer.from(e.link), `link of entry ${i + 1}`).toEqual(linkOf(hash));
    out.push({ seq: Number(e.seq), kind: kindName(Number(e.kind)) ?? `#${e.kind}`, ecfKey, ref: e.ref, digest: e.digest ? Buffer.from(e.digest).toString('hex') : null, data: e.data });
  });
  const head = await engine.db.selectFrom('journal_heads').selectAll().where('tenant_key', '=', key).executeTakeFirst();
  if (rows.length) {
    expect(Number(head!.seq)).toBe(rows.length);
    expect(Buffer.from(head!.hash)).toEqual(hash);
  }
  return out;
}
