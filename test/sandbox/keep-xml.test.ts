import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../src/engine/clock.js';
import { TaxauthClient } from '../../src/engine/taxauth/client.js';
import { TokenCache } from '../../src/engine/taxauth/token-cache.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { seedIssuer, testEngine } from '../helpers.js';
import { pointAt, signedEcf } from '../engine/taxauth/fixtures.js';

describe('documents the sandbox keeps in memory', () => {
  it('keeps the XML of the newest keepXml documents only; older ones keep their verdict, facts and indexes', async () => {
    const clock = new ManualClock('2026-03-10T14:00:00.000Z');
    const engine = await testEngine(clock);
    const box = await startSandbox({ clock, keepXml: 2 });
    onTestFinished(() => box.close());
    await pointAt(engine, box.url);
    const { tenant } = await seedIssuer(engine);
    const token = await new TokenCache().token(engine, tenant.id, 'test');
    const client = new TaxauthClient({ baseUrl: `${box.url}/testecf`, fcUrl: `${box.url}/testecf`, timeoutMs: 5_000 });

    const sent = [];
    for (const encf of ['E310000000001', 'E310000000002', 'E310000000003']) {
      const signed = await signedEcf(engine, tenant, encf);
      sent.push({ ...signed, encf, ...(await client.sendEcf(token, { rnc: tenant.rnc, encf, xml: Buffer.from(signed.xml) })) });
    }
    const kept = box.control.submissions();
    expect(kept.map((s) => s.xml)).toEqual(['', sent[1]!.xml, sent[2]!.xml]);
    expect(kept[0]).toMatchObject({ encf: 'E310000000001', verdict: { code: 1 }, facts: { securityCode: sent[0]!.securityCode } });
    // The oldest one still answers every query.
    expect((await client.result(token, sent[0]!.trackId)).code).toBe(1);
    expect((await client.status(token, { rnc: tenant.rnc, encf: 'E310000000001', securityCode: sent[0]!.securityCode })).code).toBe(1);
    expect(await client.trackIds(token, tenant.rnc, 'E310000000001')).toMatchObject([{ trackId: sent[0]!.trackId, status: 'Aceptado' }]);
    await engine.close();
  });
});
