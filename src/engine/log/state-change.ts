import type { Kysely } from 'kysely';
import { afterCommit } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { EngineLog } from './logger.js';

/** What changed state: an e-CF, an annulment (ANECF) or a webhook delivery. */
export type StateSubject = 'ecf' | 'annulment' | 'delivery';

export interface StateChange {
  readonly subject: StateSubject;
  readonly tenantId: string | null;
  /** The e-CF's or the annulment's id, or the delivery's. */
  readonly id: string;
  readonly from: string | null;
  readonly to: string;
  readonly encf?: string | null;
  /** Which claim of the work item made the change (1 = the first). */
  readonly attempt?: number | null;
  /** Anything else worth a field (trackId, endpoint id, event type); never a secret. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Logs a state change at info once, after the transaction that made it
 * commits, in the process that made it: a rolled-back transaction logs
 * nothing, and another process that sees the new state does not log it again.
 * Pass the transaction of the change (inTransaction's tx); on the root
 * connection the change is already committed, and it is logged at once.
 */
export function logStateChange(log: EngineLog, db: Kysely<Database>, change: StateChange): void {
  afterCommit(db, () => log.info(stateChangeFields(change), `${change.subject} ${change.encf ?? change.id} ${change.from ?? 'new'} → ${change.to}`));
}

export function stateChangeFields(change: StateChange): Record<string, unknown> {
  return {
    stateChange: change.subject,
    tenantId: change.tenantId,
    [`${change.subject}Id`]: change.id,
    ...(change.encf && { encf: change.encf }),
    from: change.from,
    to: change.to,
    ...(change.attempt != null && { attempt: change.attempt }),
    ...change.extra,
  };
}
