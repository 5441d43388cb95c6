import type { TaxauthClient } from '../taxauth/client.js';
import type { Engine } from '../engine-types.js';
import type { CaseRow, PortalCounts } from './cases.js';
import type { CaseState } from './plan.js';

/** What a certification run says and returns (re-exported by run.ts), and what its parts share. */

export const CERT_ENVIRONMENT = 'cert' as const;

export type RunOutcome =
  /** Every case accepted. */
  | 'done'
  /** A case was rejected: the set must be imported and run again (RESET_EXPLANATION). */
  | 'stopped'
  /** Verdicts still pending after POLL_GIVE_UP_MS, or the authority unreachable: run again later. */
  | 'waiting'
  /** Notes whose original e-CF is not accepted. */
  | 'blocked'
  /** Interrupted (Ctrl-C); running again resumes. */
  | 'interrupted';

export interface CaseReport {
  readonly sheet: string;
  readonly row: number;
  readonly caseId: string;
  readonly encf: string;
  readonly kind: string;
  readonly state: CaseState;
  readonly messages: readonly { code: number; value: string }[];
}

export interface RunResult {
  readonly paso: 2 | 3;
  readonly generation: number;
  readonly outcome: RunOutcome;
  readonly counts: PortalCounts;
  readonly rejected: readonly CaseReport[];
  /** One paragraph for the person: what happened, what to do next. */
  readonly note: string;
}

export type RunEvent =
  | { readonly type: 'prepared'; readonly count: number }
  /** Cases a run that died left `sending`: asked about at `until` (three client timeouts after their send), not before. */
  | { readonly type: 'settling'; readonly encfs: readonly string[]; readonly until: string; readonly waitMs: number }
  | { readonly type: 'sent'; readonly case: CaseReport }
  | { readonly type: 'verdict'; readonly case: CaseReport; readonly counts: PortalCounts };

export interface RunOptions {
  readonly paso: 2 | 3;
  readonly onEvent?: (event: RunEvent) => void;
  /** Waiting between polls; tests pass one that moves their clock. */
  readonly wait?: (ms: number) => Promise<void>;
  readonly signal?: AbortSignal;
}

/** One run of one tenant's Paso: what its parts need to talk to the authority and to record. */
export interface RunContext {
  readonly engine: Engine;
  readonly tenantId: string;
  readonly rnc: string;
  readonly client: TaxauthClient;
  /** The tenant's token from the engine's port (`engine.taxauth.withToken`: a 401 renews it once). */
  readonly withToken: <T>(fn: (token: string) => Promise<T>) => Promise<T>;
  readonly emit: (event: RunEvent) => void;
  readonly paso: 2 | 3;
}

export const caseReport = (c: CaseRow): CaseReport => ({ sheet: c.sheet, row: c.row, caseId: c.caseId, encf: c.encf, kind: c.kind, state: c.state, messages: c.messages });
