import type { Limits } from '../taxauth/conversation.js';

/**
 * How annulments talk to the authority (annulment-send.ts). An ANECF is sent
 * in the person's own request and tried again by the person (POST
 * /sequences/annulments/{id}/retry), never on a ladder: the conversation has
 * no rungs to climb, so a busy, lost or unreachable answer, or a token that
 * does not go through, ends the attempt as `failed` at once.
 */
export const ANNULMENT_CONVERSATION_LIMITS: Limits = { polls: 0, transport: 0, busy: 0 };

/** The authority's codigo for "Satisfactorio", the one success observed (NOTES §4.8). */
export const ANNULLED_CODE = '15';

/**
 * A send is seed, signed seed and anularrango, each once more after a 401:
 * at most six calls of the client's timeout. Past that the process that
 * sent it is gone.
 */
export const LEASE_CALLS = 6;
