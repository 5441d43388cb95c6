import type { FastifyServerOptions } from 'fastify';
import type { Clock } from '../engine/clock.js';
import type { CertificationMode, CertificationSources } from './certification/mode.js';
import type { SandboxDelay, SandboxLoad, SandboxLoadInput } from './load.js';
import type { SandboxMessage, SandboxScript } from './outcomes.js';
import type { SandboxStatusControl } from './status-services.js';
import type { ForeignApprovalOptions, ReceiverAnswer } from './taxpayer.js';

/**
 * The sandbox's public shapes: what a caller passes to buildSandbox and what
 * the control hands back. Kept apart from the code so a reader of the API
 * sees it whole, and the route plugins can share it without importing app.ts.
 */

export const SANDBOX_ENVIRONMENTS = ['testecf', 'certecf', 'ecf'] as const;
export type SandboxEnvironment = (typeof SANDBOX_ENVIRONMENTS)[number];

export interface SandboxOptions {
  /** The sandbox's "now" (seed dates, token lifetimes, receipt times, certificate validity). */
  readonly clock?: Clock;
  /** Same as `clock`, as a function; `clock` wins when both are given. */
  readonly now?: () => Date;
  readonly logger?: FastifyServerOptions['logger'];
  /** The authority's latency and limits (load.ts); none unless given. Invalid settings throw, naming the field. */
  readonly load?: SandboxLoadInput;
  /** How a delayed request waits; a timer by default (ended early when the sandbox closes). Tests inject one to see the delays. */
  readonly delay?: SandboxDelay;
  /** The jitter's source of numbers in [0, 1); Math.random by default. */
  readonly random?: () => number;
  /**
   * How many of the newest e-CF and RFCE received keep their XML in memory
   * (1,000 by default); older ones keep their verdict and facts, and their
   * `xml` becomes ''. At ~10–20 KB a document, keeping them all would make a
   * long drain through an in-process sandbox grow by gigabytes.
   */
  readonly keepXml?: number;
  /** Where the certification mode gets its workbooks and reads documents back into columns (certification/sources.ts by default). */
  readonly certification?: CertificationSources;
  /** The key the status services (statusecf) accept; SANDBOX_STATUS_API_KEY by default. */
  readonly statusApiKey?: string;
}

export interface SandboxVerdict {
  readonly code: 1 | 2 | 4;
  readonly status: string;
  readonly sequenceUsed: boolean;
  readonly messages: readonly SandboxMessage[];
}

/** A document the sandbox received, with the verdict it will give. */
export interface SandboxSubmission {
  readonly id: string;
  /** null for an RFCE, which has none. */
  readonly trackId: string | null;
  readonly environment: SandboxEnvironment;
  readonly kind: 'ecf' | 'rfce';
  readonly rnc: string;
  readonly encf: string;
  readonly fileName: string;
  /** As received; '' once older than the newest `keepXml` documents (SandboxOptions). */
  readonly xml: string;
  readonly receivedAt: Date;
  readonly verdict: SandboxVerdict;
  /** Result queries that still answer "En Proceso". */
  readonly queriesInProcess: number;
  readonly facts: DocumentFacts;
}

export interface DocumentFacts {
  readonly totalAmount: string | null;
  readonly totalItbis: string | null;
  readonly issuedOn: string | null;
  readonly signedAt: string | null;
  readonly buyerRnc: string | null;
  readonly foreignId: string | null;
  readonly securityCode: string | null;
}

/** An ANECF the sandbox received, with its answer. */
export interface SandboxAnnulment {
  readonly id: string;
  readonly environment: SandboxEnvironment;
  /** RncEmisor as the document says; null when it could not be read. */
  readonly rnc: string | null;
  readonly fileName: string;
  readonly xml: string;
  readonly receivedAt: Date;
  /** true: the numbers are annulled (codigo 15); false: refused. */
  readonly annulled: boolean;
  readonly code: string;
  readonly messages: readonly string[];
  /** The ranges the document names (empty when it could not be read). */
  readonly ranges: readonly { readonly type: number; readonly from: number; readonly to: number }[];
}

export interface SandboxStats {
  readonly seedsIssued: number;
  readonly tokensIssued: number;
  readonly seedRejections: number;
  readonly unauthorized: number;
  readonly receptions: number;
  readonly rfceReceptions: number;
  readonly resultQueries: number;
  readonly annulments: number;
  /** Requests answered 429/503 because `maxInFlight` were in flight already. */
  readonly overloaded: number;
  /** Requests that waited a latency above zero. */
  readonly delayed: number;
  /** The most authority requests in flight at once (waiting included), since the start or the last reset. */
  readonly maxInFlightSeen: number;
}

export interface SandboxControl {
  /** Queues outcomes for one e-NCF, or (without `encf`) for the next documents. */
  script(script: SandboxScript): void;
  clearScripts(): void;
  /** Closes every connection on its first request (except /_sandbox/*) until turned off, or for `forMs`. */
  setUnreachable(on: boolean, forMs?: number): void;
  /** Every token issued so far answers 401 from now on; returns how many were valid. */
  revokeTokens(): number;
  /** The tokens issued, oldest first (tests check that they never leak). */
  issuedTokens(): string[];
  submissions(filter?: { readonly encf?: string; readonly environment?: SandboxEnvironment }): readonly SandboxSubmission[];
  /** The ANECF received, oldest first, refused ones included. */
  annulments(filter?: { readonly environment?: SandboxEnvironment }): readonly SandboxAnnulment[];
  stats(): SandboxStats;
  /**
   * Changes the latency and limits (load.ts: what is given replaces what is
   * in force) and returns the settings now in force; invalid settings throw,
   * naming the field.
   */
  setLoad(change: SandboxLoadInput): SandboxLoad;
  load(): SandboxLoad;
  /** Authority requests in flight now, those waiting their latency included. */
  inFlight(): number;
  /** Forgets everything: seeds, tokens, documents, scripts, counters. The latency and limits stay as they are. */
  reset(): void;
  now(): Date;
  /** The sandbox as another taxpayer (taxpayer.ts). */
  readonly taxpayer: SandboxTaxpayer;
  /** Adds or replaces a directory entry (consultadirectorio); the sandbox taxpayer is always listed. */
  registerTaxpayer(entry: DirectoryRecord): void;
  /** ACECF received by the authority's aprobacioncomercial service. */
  approvals(): readonly ReceivedApproval[];
  /** The next `n` ACECF answer 503: at the sandbox taxpayer's receiver (`issuer`) or at the authority. */
  failApprovals(where: 'issuer' | 'authority', n: number): void;
  /** The certification mode (certification/mode.ts): sets per applicant RNC, judged in certecf. */
  readonly certification: CertificationMode;
  /** The status host's services (status-services.ts): environments' status, maintenance windows, the API key. */
  readonly status: SandboxStatusControl;
}

export interface DirectoryRecord {
  readonly rnc: string;
  readonly nombre: string;
  readonly urlRecepcion: string | null;
  readonly urlAceptacion: string | null;
  readonly urlOpcional: string | null;
}

export interface ReceivedApproval {
  readonly fileName: string;
  readonly xml: string;
  readonly receivedAt: Date;
}

export interface SandboxTaxpayer {
  readonly rnc: string;
  /** Its signing certificate (PEM), to verify what it signs. */
  certificatePem(): string;
  /** A signed e-CF from it to `buyerRnc`; numbers E31… in turn unless `encf` is given. */
  makeEcf(options: { buyerRnc: string; encf?: string; payload?: Record<string, unknown> }): { xml: string; encf: string; montoTotal: string; issueDate: string };
  /** A signed ACECF from it, as buyer, over an e-CF of `issuerRnc`. */
  makeApproval(options: ForeignApprovalOptions): string;
  /** Sends a signed e-CF to a receiver base URL (`{receiverUrl}/fe/recepcion/api/ecf`). */
  sendEcf(receiverUrl: string, xml: string, options: { encf: string; authenticate?: boolean }): Promise<ReceiverAnswer>;
  /** Sends a signed ACECF to a receiver base URL (`{receiverUrl}/fe/aprobacioncomercial/api/ecf`). */
  sendApproval(receiverUrl: string, xml: string, options: { encf: string; authenticate?: boolean }): Promise<ReceiverAnswer>;
  /** ACECF its receiver accepted (valid schema and signature), oldest first. */
  receivedApprovals(): readonly ReceivedApproval[];
}
