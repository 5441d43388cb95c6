import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
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
