import { describe, expect, it } from 'vitest';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { runCertificationSet, type RunEvent } from '../../../src/engine/certification/run.js';
import { loadCases } from '../../../src/engine/certification/cases.js';
import { BUSY_WAITS_MS, TRANSPORT_WAITS_MS } from '../../../src/engine/certification/rules.js';
import { sandboxSetHarness } from './certify-harness.js';

/*
 * A certification run's calls as conversations with the authority
 * (taxauth/conversation.ts): a refused token is renewed once, "not now"
 * answers wait without counting as failures, and failures to reach the
 * authority wait on their ladder until the run stops as 'waiting'.
 */

/** A Paso 2 set imported, the case the run sends first, and a timeline of the run's waits and sends. */
async function imported() {
  const h = await sandboxSetHarness('section8');
  expect((await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx')).problems).toEqual([]);
  const first = (await loadCases(h.engine, h.tenant.id, 2)).find((c) => c.phase === 'ecf')!;
  const timeline: (number | string)[] = [];
  const run = () =>
    runCertificationSet(h.engine, h.tenant.id, {
      paso: 2,
      wait: async (ms) => {
        timeline.push(ms);
        await h.wait(ms);
      },
      onEvent: (e: RunEvent) => void (e.type === 'sent' && timeline.push(e.case.encf)),
    });
  const received = (encf: string) => h.sandbox.control.submissions({ encf, environment: 'certecf' }).filter((s) => s.kind === 'ecf').length;
  return { h, first, timeline, run, received };
}

describe('ecf certify run: each case a conversation with the authority', () => {
  it('a token refused during a send is renewed once and the same send goes out once', async () => {
    const { h, first, timeline, run, received } = await imported();
    await h.engine.taxauth.withToken(h.tenant.id, 'cert', async () => undefined);
    const before = h.sandbox.control.issuedTokens().length;
    expect(h.sandbox.control.revokeTokens()).toBe(1);
    const result = await run();
    expect(result.outcome).toBe('done');
    expect(h.sandbox.control.issuedTokens().length).toBe(before + 1);
    expect(timeline[0]).toBe(first.encf);
    expect(received(first.encf)).toBe(1);
  });

  it('"not now" (503) waits on the busy ladder without counting as a failure, then the send goes out once', async () => {
    const { h, first, timeline, run, received } = await imported();
    // More busy answers in a row than a run stands failures: had they counted, it would stop 'waiting'.
    h.sandbox.control.script({ encf: first.encf, outcomes: BUSY_WAITS_MS.map(() => ({ kind: 'http5xx' as const, status: 503 })) });
    const result = await run();
    expect(result.outcome).toBe('done');
    expect(timeline.slice(0, timeline.indexOf(first.encf))).toEqual([...BUSY_WAITS_MS]);
    expect(received(first.encf)).toBe(1);
  });

  it('an authority that answers 500 to every send: the transport ladder, then "waiting" with the case prepared, nothing received; the next run sends it', async () => {
    const { h, first, timeline, run, received } = await imported();
    h.sandbox.control.script({ encf: first.encf, outcomes: [...TRANSPORT_WAITS_MS, 0].map(() => ({ kind: 'http5xx' as const, status: 500 })) });
    const stopped = await run();
    expect(stopped.outcome).toBe('waiting');
    expect(timeline).toEqual([...TRANSPORT_WAITS_MS]);
    expect((await loadCases(h.engine, h.tenant.id, 2)).find((c) => c.id === first.id)!.state).toBe('prepared');
    expect(received(first.encf)).toBe(0);
    expect((await run()).outcome).toBe('done');
    expect(received(first.encf)).toBe(1);
  });
});
