import type { Command, Limits } from '../taxauth/conversation.js';
import { DELIVERY_LADDER_MS } from '../work/ladder.js';

/** How outgoing ACECF are delivered (deliver.ts): the shared delivery ladder, then failed. */
export const APPROVAL_DELIVERY_LADDER_MS = DELIVERY_LADDER_MS;

/**
 * One attempt at an outgoing ACECF is one exchange of the conversation
 * (taxauth/conversation.ts) with no rungs of its own: every failure ends
 * the attempt, and the delivery's ladder above, counted by its attempts,
 * says when the next one comes.
 */
export const DELIVERY_CONVERSATION_LIMITS: Limits = { polls: 0, transport: 0, busy: 0 };

/**
 * What an attempt's last move makes of the delivery: a verdict recorded is
 * delivered (a 2xx from the receiver, codigo 1 from the authority); a
 * refusal is final (a definite 4xx, the authority's codigo 2 other than its
 * "try again"). Anything else (busy, lost, unreachable, a token refused, an
 * answer that cannot be read, a directory without the receiver's URL, the
 * authority's "intentar nuevamente") is tried again on the ladder: the other
 * side may mend it.
 */
export function deliveryOutcome(command: Command): 'delivered' | 'refused' | 'retry' {
  if (command.do === 'record-verdict') return 'delivered';
  if (command.do === 'give-up' && command.why === 'refused') return 'refused';
  return 'retry';
}

/** One call to another taxpayer's receiver may take this long. */
export const RECEIVER_TIMEOUT_MS = 15_000;

/** ACECF deliveries to other taxpayers' receivers in flight at once, over all tenants. */
export const RECEIVERS_CONCURRENCY = 16;
