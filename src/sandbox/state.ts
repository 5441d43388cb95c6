import type { SandboxOutcome } from './outcomes.js';
import type { DirectoryRecord, ReceivedApproval, SandboxAnnulment, SandboxEnvironment, SandboxStats, SandboxSubmission } from './types.js';

/**
 * Everything the sandbox remembers, in memory: seeds and tokens, the
 * documents received and their indexes, the scripted outcomes, the counters.
 * A reset replaces the whole object (freshState), so whoever holds the
 * sandbox context reads `context.state` at the moment of use, never keeps it.
 */

export interface SeedRecord {
  readonly environment: SandboxEnvironment;
  used: boolean;
}

export interface TokenRecord {
  readonly environment: SandboxEnvironment;
  readonly expiresAt: number;
  revoked: boolean;
}

/** A submission as stored: its XML is released once it is older than `keepXml`, its "En Proceso" queries count down. */
export interface MutableSubmission extends Omit<SandboxSubmission, 'queriesInProcess' | 'xml'> {
  queriesInProcess: number;
  xml: string;
}

export type Counters = { -readonly [K in Exclude<keyof SandboxStats, 'overloaded' | 'delayed' | 'maxInFlightSeen'>]: number };

export interface State {
  directory: Map<string, DirectoryRecord>;
  authorityApprovals: ReceivedApproval[];
  taxpayerApprovals: ReceivedApproval[];
  failApprovals: { issuer: number; authority: number };
  nextEncf: number;
  seeds: Map<string, SeedRecord>;
  tokens: Map<string, TokenRecord>;
  submissions: MutableSubmission[];
  /** The e-CF submissions by trackId, for the result query. */
  byTrackId: Map<string, MutableSubmission>;
  /** Every submission of an e-NCF (usedKey), oldest first, for the queries by e-NCF. */
  byEncf: Map<string, MutableSubmission[]>;
  used: Set<string>;
  annulments: SandboxAnnulment[];
  next: SandboxOutcome[];
  perEncf: Map<string, SandboxOutcome[]>;
  unreachable: boolean;
  unreachableUntil: number | null;
  stats: Counters;
}

export const freshState = (): State => ({
  directory: new Map(),
  authorityApprovals: [],
  taxpayerApprovals: [],
  failApprovals: { issuer: 0, authority: 0 },
  nextEncf: 1,
  seeds: new Map(),
  tokens: new Map(),
  submissions: [],
  byTrackId: new Map(),
  byEncf: new Map(),
  used: new Set(),
  annulments: [],
  next: [],
  perEncf: new Map(),
  unreachable: false,
  unreachableUntil: null,
  stats: { seedsIssued: 0, tokensIssued: 0, seedRejections: 0, unauthorized: 0, receptions: 0, rfceReceptions: 0, resultQueries: 0, annulments: 0 },
});

/** The key of an e-NCF used in an environment by an issuer: `used` and `byEncf` are keyed by it. */
export const usedKey = (environment: string, rnc: string, encf: string) => `${environment}|${rnc}|${encf}`;

/** The next scripted outcome for `encf`: its own queue first, then the queue for any document. */
export function takeOutcome(state: State, encf: string): SandboxOutcome | undefined {
  const queue = state.perEncf.get(encf);
  if (queue?.length) {
    const outcome = queue.shift();
    if (!queue.length) state.perEncf.delete(encf);
    return outcome;
  }
  return state.next.shift();
}

export function setUnreachable(state: State, on: boolean, forMs?: number): void {
  state.unreachable = on;
  state.unreachableUntil = on && forMs ? Date.now() + forMs : null;
}

/** Whether the sandbox plays unreachable now; a timed spell ends on the first look after it runs out. */
export function isUnreachable(state: State): boolean {
  if (state.unreachable && state.unreachableUntil !== null && Date.now() >= state.unreachableUntil) {
    state.unreachable = false;
    state.unreachableUntil = null;
  }
  return state.unreachable;
}

/** Whether an accepted annulment of this environment and RNC covers any number of `type` from–to. */
export function isAnnulled(state: State, environment: SandboxEnvironment, rnc: string | null, type: number, from: number, to: number): boolean {
  return state.annulments.some(
    (a) => a.annulled && a.environment === environment && a.rnc === rnc && a.ranges.some((r) => r.type === type && r.from <= to && from <= r.to),
  );
}

/**
 * Stores a judged e-CF or RFCE with its indexes and counters. Only the newest
 * `keepXml` keep their XML: a long drain would otherwise grow by gigabytes.
 */
export function keepSubmission(state: State, submission: MutableSubmission, keepXml: number): void {
  if (submission.verdict.sequenceUsed) state.used.add(usedKey(submission.environment, submission.rnc, submission.encf));
  state.submissions.push(submission);
  const released = state.submissions[state.submissions.length - 1 - keepXml];
  if (released) released.xml = '';
  if (submission.trackId) state.byTrackId.set(submission.trackId, submission);
  const key = usedKey(submission.environment, submission.rnc, submission.encf);
  const same = state.byEncf.get(key);
  if (same) same.push(submission);
  else state.byEncf.set(key, [submission]);
  if (submission.kind === 'ecf') state.stats.receptions++;
  else state.stats.rfceReceptions++;
}
