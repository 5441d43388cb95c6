import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { REQUIRE_BEARER_SETTING } from '../../../src/engine/reception/queries.js';
import { SEED_LIFETIME_MS, TOKEN_LIFETIME_MS, issueReceiverSeed, receiverScope, validateReceiverSeed } from '../../../src/engine/reception/receiver-auth.js';
import { credentialHash, keepCredential } from '../../../src/engine/reception/receiver-credentials.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { signSeed } from '../../../src/engine/taxauth/token-cache.js';
import { makeTaxpayerIdentity } from '../../../src/sandbox/taxpayer.js';
import { seedTenant, testEngine } from '../../helpers.js';

/**
 * Two engines on one store stand for two nodes behind a balancer with no
 * sticky sessions (the real processes are in several-nodes.test.ts): each
 * step of the receiver's authentication may land on either, and one clock
 * moves both.
 */

const opened: Engine[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});

async function twoNodes() {
  const clock = new ManualClock('2026-03-10T14:00:00.000Z');
  const a = await testEngine(clock);
  const b = await openEngine({ dataDir: a.dataDir, clock });
  opened.push(b);
  const { tenant } = await seedTenant(a);
  await setSetting(a, REQUIRE_BEARER_SETTING, true, tenant.id);
  const identity = makeTaxpayerIdentity(clock.now());
  const signedSeed = async (node: Engine) => signSeed(await issueReceiverSeed(node, tenant.id), identity.key);
  const refusal = (e: unknown) => (e as { errors?: { code: string; message: string }[] }).errors?.[0];
  return { clock, a, b, tenant, signedSeed, refusal };
}

describe("the B2B receiver's seeds and tokens, shared by every node of one store", () => {
  it('a seed from one node buys a token at the other, which both honour; a seed presented to both at once buys one token', async () => {
    const { a, b, tenant, signedSeed, refusal } = await twoNodes();

    const grant = await validateReceiverSeed(b, tenant.id, await signedSeed(a));
    expect(grant.expira).toBe('2026-03-10T15:00:00Z');
    for (const node of [a, b]) expect(await receiverScope(node, tenant.id, `Bearer ${grant.token}`)).toBe(tenant.id);

    // Spent at B: refused at A, as it would be at B.
    const seed = await signedSeed(b);
    await validateReceiverSeed(b, tenant.id, seed);
    await expect(validateReceiverSeed(a, tenant.id, seed)).rejects.toSatisfy((e) => refusal(e)?.message === 'the seed was not issued by this receiver');

    // The same signed seed at both nodes at the same moment, eight times over: one token each time.
    for (let i = 0; i < 8; i++) {
      const raced = await signedSeed(i % 2 ? a : b);
      const outcomes = await Promise.allSettled([validateReceiverSeed(a, tenant.id, raced), validateReceiverSeed(b, tenant.id, raced)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refusal(refused.reason)).toEqual({ path: 'xml', code: 'Receiver.SeedRefused', message: 'the seed was not issued by this receiver' });
    }
    const tokens = await a.db.selectFrom('reception_tokens').select('tenant_id').execute();
    expect(tokens).toHaveLength(1 + 1 + 8);
  });

  it("a token is good for an hour on the store's clock, on every node; a seed for five minutes; another tenant's seed or token is not this one's", async () => {
    const { clock, a, b, tenant, signedSeed, refusal } = await twoNodes();
    const { token } = await validateReceiverSeed(a, tenant.id, await signedSeed(a));

    clock.advance(TOKEN_LIFETIME_MS - 1);
    expect(await receiverScope(b, tenant.id, `bearer ${token}`)).toBe(tenant.id);
    clock.advance(1);
    for (const node of [a, b]) {
      await expect(receiverScope(node, tenant.id, `Bearer ${token}`)).rejects.toMatchObject({ code: 'Receiver.TokenInvalid', kind: 'unauthenticated' });
    }

    const late = await signedSeed(a);
    clock.advance(SEED_LIFETIME_MS);
    await expect(validateReceiverSeed(b, tenant.id, late)).rejects.toSatisfy((e) => refusal(e)?.message === 'the seed expired; ask for a new one');
    // Refused, and spent all the same: the next try finds no such seed.
    await expect(validateReceiverSeed(a, tenant.id, late)).rejects.toSatisfy((e) => refusal(e)?.message === 'the seed was not issued by this receiver');

    const other = await seedTenant(a);
    await setSetting(a, REQUIRE_BEARER_SETTING, true, other.tenant.id);
    await expect(validateReceiverSeed(b, other.tenant.id, await signedSeed(a))).rejects.toSatisfy((e) => refusal(e)?.message === 'the seed was not issued by this receiver');
    const ours = await validateReceiverSeed(b, tenant.id, await signedSeed(b));
    await expect(receiverScope(a, other.tenant.id, `Bearer ${ours.token}`)).rejects.toMatchObject({ code: 'Receiver.TokenInvalid' });
  });

  it('keeps only SHA-256 hashes of seeds and tokens, and clears expired rows as new ones are made', async () => {
    const { clock, a, b, tenant, signedSeed } = await twoNodes();
    const seedXml = await issueReceiverSeed(a, tenant.id);
    const valor = /<valor>([^<]*)<\/valor>/.exec(seedXml)![1]!;
    const { token } = await validateReceiverSeed(b, tenant.id, await signedSeed(a));

    const seeds = await a.db.selectFrom('reception_seeds').selectAll().execute();
    const tokens = await a.db.selectFrom('reception_tokens').selectAll().execute();
    expect(seeds.map((s) => s.value_hash)).toEqual([credentialHash(valor)]);
    expect(tokens.map((t) => t.value_hash)).toEqual([credentialHash(token)]);
    expect(JSON.stringify([...seeds, ...tokens])).not.toContain(token);
    expect(JSON.stringify([...seeds, ...tokens])).not.toContain(valor);

    // An hour on, both rows are expired: the next seed and the next token made (on either node) take them away.
    clock.advance(TOKEN_LIFETIME_MS);
    const fresh = await signedSeed(b);
    expect(await a.db.selectFrom('reception_seeds').select('value_hash').execute()).toHaveLength(1);
    await validateReceiverSeed(a, tenant.id, fresh);
    expect(await a.db.selectFrom('reception_seeds').select('value_hash').execute()).toHaveLength(0);
    expect((await a.db.selectFrom('reception_tokens').select('value_hash').execute()).map((t) => t.value_hash)).not.toContain(credentialHash(token));
  });

  it("keeps at most the cap of a tenant's live rows, the oldest going first, and leaves other tenants' alone", async () => {
    const { clock, a, b, tenant } = await twoNodes();
    const other = await seedTenant(a);
    const keep = (node: Engine, tenantId: string, value: string, minutes: number) =>
      inTransaction(node.db, (tx) => keepCredential(tx, 'reception_seeds', tenantId, value, clock.now(), new Date(clock.now().getTime() + minutes * 60_000), 3));
    await keep(a, other.tenant.id, 'theirs', 1);
    for (let i = 1; i <= 5; i++) await keep(i % 2 ? a : b, tenant.id, `ours-${i}`, i);
    const rows = await a.db.selectFrom('reception_seeds').select(['value_hash', 'tenant_id']).orderBy('expires_at').execute();
    expect(rows).toEqual([
      { value_hash: credentialHash('theirs'), tenant_id: other.tenant.id },
      ...[3, 4, 5].map((i) => ({ value_hash: credentialHash(`ours-${i}`), tenant_id: tenant.id })),
    ]);
  });
});
