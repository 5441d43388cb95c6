import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { chainHash, canonicalEntry, type ChainEntry } from '../../../src/engine/journal/chain.js';
import { GENESIS, JOURNAL_KINDS, documentDigest, linkOf, nextHash } from '../../../src/engine/journal/index.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

describe('the journal', () => {
  it('chains an ecf.issued entry per e-CF, also when many share a group commit, and its head holds the full hash', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = await Promise.all(
      Array.from({ length: 20 }, (_, i) => issueEcf(engine, tenant.id, { idempotencyKey: `j-${i}`, payload: invoice31({ internalNumber: `J-${i}` }) })),
    );
    const key = await tenantKey(engine.db, tenant.id);
    const entries = await engine.db.selectFrom('journal').selectAll().where('tenant_key', '=', key).orderBy('seq').execute();
    const mine = entries.filter((e) => e.kind === JOURNAL_KINDS['ecf.issued']);
    expect(mine).toHaveLength(20);
    const docs = await engine.db
      .selectFrom('ecf')
      .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
      .select(['ecf.id', 'ecf.store_key', 'ecf_documents.xml_sha256', 'ecf_documents.rfce_sha256'])
      .where('ecf.tenant_key', '=', key)
      .execute();
    expect(new Set(mine.map((e) => e.ecf_key))).toEqual(new Set(docs.map((d) => d.store_key)));
    for (const d of docs) expect(mine.find((e) => e.ecf_key === d.store_key)!.digest).toEqual(documentDigest(d.xml_sha256!, d.rfce_sha256));
    expect(new Set(docs.map((d) => d.id))).toEqual(new Set(issued.map((r) => r.ecf.id)));

    let hash = GENESIS;
    entries.forEach((e, i) => {
      expect(Number(e.seq)).toBe(i + 1);
      hash = nextHash(hash, { tenantKey: key, seq: Number(e.seq), at: Number(e.at), kind: Number(e.kind), ecfKey: e.ecf_key === null ? null : Number(e.ecf_key), ref: e.ref, digest: e.digest, data: e.data });
      expect(e.link).toEqual(linkOf(hash));
    });
    const head = await engine.db.selectFrom('journal_heads').selectAll().where('tenant_key', '=', key).executeTakeFirstOrThrow();
    expect(Number(head.seq)).toBe(entries.length);
    expect(head.hash).toEqual(hash);
  });
});

describe('the chain formula', () => {
  // The formula as chain.ts's doc comment gives it, written the plainest way: the verify's own writer
  // (no intermediate string, a digest given as hex text) must hash these very bytes.
  const plain = (previous: Buffer, e: ChainEntry) =>
    createHash('sha256')
      .update(previous)
      .update(Buffer.from(JSON.stringify([1, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, e.digest ? e.digest.toString('hex') : null, e.data]), 'utf8'))
      .digest();
  const digest = Buffer.from('00ff10a0b1c2d3e4f5a6b7c8d9eaf0123456789abcdef0fedcba9876543210ab', 'hex');
  const entries: ChainEntry[] = [
    { tenantKey: 1, seq: 1, at: 1_764_000_000_000, kind: 1, ecfKey: 42, ref: null, digest, data: null },
    { tenantKey: 7, seq: 2, at: 0, kind: 3, ecfKey: null, ref: 'r-ñ-€-😀 "quoted" \\ back', digest: null, data: '{"a":"b","n":[1,2]}\n\t\u0001' },
    { tenantKey: 2 ** 40, seq: 2 ** 31 + 5, at: -1, kind: 20, ecfKey: 0, ref: '\ud800 lone surrogate', digest: Buffer.alloc(0), data: 'x'.repeat(10_000) },
    { tenantKey: 3, seq: 9, at: 5, kind: 2, ecfKey: 1, ref: '', digest: Buffer.from([1, 2, 3]), data: '' },
  ];

  it('hashes the canonical entry after the previous hash, byte for byte, whether the digest comes as bytes or as hex text of either case', () => {
    let previous = GENESIS;
    for (const e of entries) {
      const expected = plain(previous, e);
      expect(canonicalEntry(e)).toBe(JSON.stringify([1, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, e.digest ? e.digest.toString('hex') : null, e.data]));
      expect(nextHash(previous, e)).toEqual(expected);
      const hex = e.digest?.toString('hex') ?? null;
      expect(chainHash(previous, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, hex, e.data)).toEqual(expected);
      expect(chainHash(previous, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, hex?.toUpperCase() ?? null, e.data)).toEqual(expected);
      previous = expected;
    }
  });
});
