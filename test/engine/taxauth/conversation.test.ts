import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  begin,
  eventOfError,
  FINAL_PHASES,
  isDefiniteRefusal,
  prepared,
  step,
  type Command,
  type Conversation,
  type ConversationEvent,
  type Limits,
} from '../../../src/engine/taxauth/conversation.js';

const LIMITS: Limits = { polls: 4, transport: 3, busy: 2 };
const FAILURES: ConversationEvent[] = [{ type: 'lost' }, { type: 'unreachable' }, { type: 'busy' }, { type: 'token-expired' }, { type: 'refused' }, { type: 'broken' }];

/** What the authority may answer to each call. */
const ANSWERS: Record<'send' | 'ask' | 'poll' | 'renew-token', ConversationEvent[]> = {
  send: [{ type: 'receipt', trackId: 't1' }, { type: 'verdict' }, { type: 'resend' }, ...FAILURES],
  ask: [{ type: 'received', trackId: 't0' }, { type: 'not-received' }, { type: 'verdict' }, ...FAILURES],
  poll: [{ type: 'pending' }, { type: 'verdict' }, { type: 'resend' }, ...FAILURES],
  'renew-token': [{ type: 'renewed' }, { type: 'renewed' }, { type: 'renewed' }, { type: 'lost' }, { type: 'unreachable' }],
};

type Entry = { readonly command: Command } | { readonly event: ConversationEvent };

/** Plays an exchange: each choice picks the authority's answer to the call in hand; a wait begins again. */
function play(choices: readonly number[], start: Conversation = prepared()): { trace: Entry[]; last: Conversation } {
  let move = begin(start);
  const trace: Entry[] = [{ command: move.command }];
  for (const choice of choices) {
    const c = move.command;
    if (c.do === 'stop' || c.do === 'give-up' || c.do === 'record-verdict') break;
    if (c.do === 'wait' || c.do === 'follow') {
      move = begin(move.state);
      trace.push({ command: move.command });
      continue;
    }
    const options = ANSWERS[c.do];
    const event = options[choice % options.length]!;
    trace.push({ event });
    move = step(move.state, event, LIMITS);
    trace.push({ command: move.command });
  }
  return { trace, last: move.state };
}

const runs = fc.tuple(fc.array(fc.nat(), { maxLength: 60 }), fc.boolean());

describe('the conversation with the authority', () => {
  it('never sends again after a lost send until the authority says it has nothing', () => {
    fc.assert(
      fc.property(runs, ([choices, doubt]) => {
        let lostSinceSend = doubt;
        let call: string | null = null;
        for (const entry of play(choices, prepared(doubt)).trace) {
          if ('command' in entry) call = entry.command.do;
          if ('event' in entry) {
            // A send lost in flight; a renewal lost in flight says nothing of the document.
            if (entry.event.type === 'lost' && call === 'send') lostSinceSend = true;
            if (entry.event.type === 'not-received') lostSinceSend = false;
            if (['receipt', 'verdict', 'resend', 'received'].includes(entry.event.type)) lostSinceSend = false;
          } else if (entry.command.do === 'send') {
            expect(lostSinceSend).toBe(false);
          }
        }
      }),
    );
  });

  it('never makes two sends without an answer or an "unclear, asked, not received" between them', () => {
    fc.assert(
      fc.property(runs, ([choices, doubt]) => {
        let sent = false;
        let settledSince = !doubt;
        let call: string | null = null;
        for (const entry of play(choices, prepared(doubt)).trace) {
          if ('command' in entry) call = entry.command.do;
          if ('event' in entry && call === 'send') {
            // Each of these says what became of the send: answered, refused, or told "not received".
            if (['receipt', 'verdict', 'resend', 'not-received', 'unreachable', 'busy', 'token-expired', 'refused'].includes(entry.event.type)) settledSince = true;
            if (entry.event.type === 'lost') settledSince = false;
          } else if ('event' in entry) {
            // An answer about the document to an ask or a poll: it has nothing, has it, judged it, or wants it again.
            if (['not-received', 'received', 'verdict', 'resend'].includes(entry.event.type)) settledSince = true;
          } else if (entry.command.do === 'send') {
            if (sent) expect(settledSince).toBe(true);
            sent = true;
          }
        }
      }),
    );
  });

  it('a definite refusal is final', () => {
    fc.assert(
      fc.property(runs, fc.array(fc.constantFrom<ConversationEvent>(...FAILURES, { type: 'verdict' }, { type: 'not-received' }, { type: 'renewed' }), { maxLength: 10 }), ([choices, doubt], after) => {
        const { trace, last } = play(choices, prepared(doubt));
        const refused = trace.some((e) => 'event' in e && e.event.type === 'refused');
        if (!refused) return;
        expect(last.phase).toBe('refused');
        let state = last;
        for (const event of after) {
          const move = step(state, event, LIMITS);
          expect(move.command).toEqual({ do: 'stop' });
          state = move.state;
        }
        expect(begin(state).command).toEqual({ do: 'stop' });
      }),
    );
  });

  it('renews an expired token once, then makes the same call again; never loops on renewals', () => {
    fc.assert(
      fc.property(runs, ([choices, doubt]) => {
        const { trace } = play(choices, prepared(doubt));
        let renewalsInCall = 0;
        let callBefore: string | null = null;
        for (let i = 0; i < trace.length; i++) {
          const entry = trace[i]!;
          if ('event' in entry) {
            if (!['token-expired', 'renewed'].includes(entry.event.type)) renewalsInCall = 0;
            continue;
          }
          const c = entry.command;
          if (c.do === 'renew-token') {
            renewalsInCall++;
            expect(renewalsInCall).toBe(1);
            const next = trace[i + 1];
            const then = trace[i + 2];
            if (next && 'event' in next && next.event.type === 'renewed' && then && 'command' in then) expect(then.command.do).toBe(callBefore);
          } else if (c.do === 'send' || c.do === 'ask' || c.do === 'poll') callBefore = c.do;
        }
      }),
    );
  });

  it('ends: every exchange reaches a final phase or a wait within a bounded number of calls', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 400, maxLength: 400 }), fc.boolean(), (choices, doubt) => {
        const { last } = play(choices, prepared(doubt));
        expect(FINAL_PHASES.has(last.phase)).toBe(true);
      }),
    );
  });

  it('asks before sending when a send is in doubt, and follows what the authority has', () => {
    const asked = begin(prepared(true));
    expect(asked.command).toEqual({ do: 'ask' });
    const found = step(asked.state, { type: 'received', trackId: 'abc' }, LIMITS);
    expect(found.command).toEqual({ do: 'follow', trackId: 'abc' });
    expect(found.state).toMatchObject({ phase: 'answered', doubt: false, trackId: 'abc', polls: 0 });
  });

  it('a send that timed out leaves the exchange unclear, one that got a 5xx does not', () => {
    const sending = begin(prepared()).state;
    expect(step(sending, { type: 'lost' }, LIMITS)).toEqual({ state: expect.objectContaining({ phase: 'unclear', doubt: true, failures: 1 }), command: { do: 'wait', ladder: 'transport', rung: 0 } });
    expect(step(sending, { type: 'unreachable' }, LIMITS).state).toMatchObject({ phase: 'prepared', doubt: false });
  });

  it('gives up after the last rung of the transport ladder, and counts busy answers past theirs as failures', () => {
    let state = begin(prepared()).state;
    for (let i = 0; i < LIMITS.transport; i++) state = begin(step(state, { type: 'unreachable' }, LIMITS).state).state;
    expect(step(state, { type: 'unreachable' }, LIMITS).command).toEqual({ do: 'give-up', why: 'unreachable' });
    let busy = begin(prepared()).state;
    for (let i = 0; i < LIMITS.busy; i++) busy = begin(step(busy, { type: 'busy' }, LIMITS).state).state;
    expect(step(busy, { type: 'busy' }, LIMITS).command).toEqual({ do: 'wait', ladder: 'transport', rung: 0 });
  });

  it('reads the authority’s failures as events', () => {
    expect(eventOfError({ kind: 'http', status: 401, transient: false })).toEqual({ type: 'token-expired' });
    expect(eventOfError({ kind: 'http', status: 429, transient: true })).toEqual({ type: 'busy' });
    expect(eventOfError({ kind: 'http', status: 503, transient: true })).toEqual({ type: 'busy' });
    expect(eventOfError({ kind: 'timeout', status: null, transient: true })).toEqual({ type: 'lost' });
    expect(eventOfError({ kind: 'network', status: null, transient: true })).toEqual({ type: 'lost' });
    expect(eventOfError({ kind: 'http', status: 500, transient: true })).toEqual({ type: 'unreachable' });
    expect(eventOfError({ kind: 'http', status: 400, transient: false })).toEqual({ type: 'refused' });
    expect(eventOfError({ kind: 'protocol', status: null, transient: false })).toEqual({ type: 'broken' });
    expect(isDefiniteRefusal({ kind: 'http', status: 404, transient: false })).toBe(true);
    expect(isDefiniteRefusal({ kind: 'http', status: 401, transient: false })).toBe(false);
    expect(isDefiniteRefusal({ kind: 'http', status: 408, transient: true })).toBe(false);
  });
});
