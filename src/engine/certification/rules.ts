/**
 * The certification choices CERTIFICATION.md marks UNCERTAIN or SILENT, in
 * one place so each is easy to find and to change when the authority says
 * otherwise. Each is the safe reading of what is known.
 */

/**
 * Code 1209 (the e-NCF is already used) on a case of the set: the e-NCF was
 * accepted in an earlier run of the same set (after a reset the workbook's
 * numbers are sent again). [BF] counted it as accepted and was certified;
 * [CB] saw "ENCF ya usado" for an accepted case. Counted as accepted, and
 * shown as such in the report.
 */
export const SEQUENCE_USED_CODE = 1209;
export const SEQUENCE_USED_COUNTS_AS_ACCEPTED = true;

/**
 * Rejections that mean "try again" (9001, the service temporarily
 * unavailable): the same signed bytes are sent again. Unlike ordinary
 * submission, 614 is not among them: in certification a note refused with
 * 614 counts as a rejection and resets the set (CERTIFICATION.md §2.7).
 */
export const RESEND_CODES: ReadonlySet<number> = new Set([9001]);

/**
 * Aceptado Condicional (code 4): SILENT on whether the portal counts it. The
 * set's data is meant to match exactly, so only Aceptado counts; a
 * conditional acceptance stops the run like a rejection, with its messages.
 */
export const CONDITIONAL_COUNTS_AS_ACCEPTED = false;

/** How often a sent case's verdict is asked for: the authority validates in about 200 ms (NOTES), [BF] polled every 2.5 s. */
export const POLL_INTERVALS_MS: readonly number[] = [500, 1000, 2000, 2500];

/** After this long without a final verdict the run stops and says so; running again resumes the polling. */
export const POLL_GIVE_UP_MS = 10 * 60_000;

/**
 * Waits after a call that could not reach the authority (a timeout, a lost
 * connection, a 5xx other than 503), one per failure in a row; the fifth
 * failure in a row stops the run as 'waiting' (run again later). A send
 * whose answer was lost waits settleAfterMs from its send instead, before
 * it is asked about.
 */
export const TRANSPORT_WAITS_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000];

/**
 * Waits after the authority answers 429 or 503 ("not now": nothing was
 * received); they do not count as failures. Past the last one a busy answer
 * counts as a failure to reach the authority (TRANSPORT_WAITS_MS).
 */
export const BUSY_WAITS_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * The rungs of each ladder as a case's conversation with the authority
 * counts them (taxauth/conversation.ts). Polls have no count: the run gives
 * up on verdicts by time (POLL_GIVE_UP_MS), across the whole set.
 */
export const CONVERSATION_LIMITS = { polls: Number.POSITIVE_INFINITY, transport: TRANSPORT_WAITS_MS.length, busy: BUSY_WAITS_MS.length } as const;

/**
 * How long after a send whose outcome nobody recorded (the run died in the
 * middle) the authority is asked whether it arrived: a request in flight
 * when the process died may still be processed by the authority. The same
 * margin ordinary submission gives an unclear send (three client timeouts),
 * without its two-minute floor, which exists for other processes' leases.
 */
export const settleAfterMs = (clientTimeoutMs: number): number => 3 * clientTimeoutMs + 5_000;

/** The portal's upload name of a document: `{RNCEmisor}{eNCF}.xml` (NOTES §3.1; code 3243 otherwise). */
export const uploadFileName = (rnc: string, encf: string): string => `${rnc}${encf}.xml`;

/** What the portal shows after a rejection in Paso 2 (CERTIFICATION.md §2.7), and what to do. */
export const RESET_EXPLANATION =
  'Any rejected e-CF restarts the Paso 2 data tests in the portal ("Las pruebas de datos de eCF han sido reiniciadas debido a que se han rechazado comprobantes"): ' +
  'earlier acceptances no longer count (the RFCE counter is kept). Fix the cause, download the workbook again if the portal offers a new one, ' +
  'import it with `ecf certify import`, and run `ecf certify run` again: the whole set is sent again in order.';
