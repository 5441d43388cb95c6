import { describe, expect, it } from 'vitest';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { loadCases } from '../../../src/engine/certification/cases.js';
import { conversationOfCase, exchange } from '../../../src/engine/certification/run-exchange.js';
import { prepareCases } from '../../../src/engine/certification/run-prepare.js';
import type { RunContext } from '../../../src/engine/certification/run-types.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import type { TaxauthClient } from '../../../src/engine/taxauth/client.js';
import { TaxauthError } from '../../../src/engine/taxauth/errors.js';
import { sandboxSetHarness } from './certify-harness.js';

/*
 * What a failed send of a certification case leaves in the store: the case
 * stays `sending` (asked about before any second send) whenever the send
 * may have arrived, and is `prepared` again only when the authority said it
 * took nothing.
 */

const failures: readonly [string, 'sending' | 'prepared', TaxauthError, string | undefined][] = [
  ['a timeout', 'sending', new TaxauthError('timeout', 'no answer in time'), undefined],
  ['an answer nobody can read', 'sending', new TaxauthError('protocol', 'not the expected JSON'), 'broken'],
  ['503 (not now)', 'prepared', new TaxauthError('http', 'busy', { status: 503 }), undefined],
  ['a second 401 (the port renewed once already)', 'prepared', new TaxauthError('http', 'token refused', { status: 401 }), 'token'],
];

describe('a certification case whose send fails', () => {
  it.each(failures)('after %s it is %s', async (_, state, error, gaveUp) => {
    const h = await sandboxSetHarness('section8');
    expect((await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx')).problems).toEqual([]);
    const client = { timeoutMs: 1000, sendEcf: () => Promise.reject(error) } as unknown as TaxauthClient;
    const ctx: RunContext = { engine: h.engine, tenantId: h.tenant.id, rnc: h.rnc, client, withToken: (fn) => fn('token'), emit: () => {}, paso: 2 };
    const creds = await signingCredentials(h.engine, h.tenant.id);
    await prepareCases(ctx, await loadCases(h.engine, h.tenant.id, 2), signingKey(creds.privateKey, creds.certificate));
    const c = (await loadCases(h.engine, h.tenant.id, 2)).find((x) => x.phase === 'ecf')!;

    const turn = await exchange(ctx, c, conversationOfCase(c, undefined));
    expect(turn.failed).toBe(true);
    expect(turn.gaveUp?.why).toBe(gaveUp);
    const after = (await loadCases(h.engine, h.tenant.id, 2)).find((x) => x.id === c.id)!;
    expect(after.state).toBe(state);
    // The conversation it leaves agrees with the store, so the run's next turn starts from it.
    if (!gaveUp) expect(conversationOfCase(after, turn.talk)).toBe(turn.talk);
  });
});
