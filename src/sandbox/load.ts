import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  MAX_IN_FLIGHT,
  MAX_JITTER_MS,
  MAX_LATENCY_MS,
  OVERLOAD_STATUSES,
  SANDBOX_SERVICES,
  type OverloadStatus,
  type SandboxService,
} from './load-limits.js';
import { schemaErrors } from './schema-errors.js';

/**
 * The authority's speed and limits, as the sandbox plays them (issue 23):
 * every request to an environment's services waits a fixed delay plus a
 * uniform jitter in [0, jitterMs], set per service, and with a cap set, a
 * request that would exceed `maxInFlight` requests in flight is answered at
 * once with 429 or 503 and `Retry-After: 1`. The authority's behaviour under
 * load is not documented; these are knobs for tests and benchmarks, off by
 * default. The control routes (/_sandbox/*) and the sandbox taxpayer's own
 * receiver (/taxpayer/*) are never delayed nor counted: they are not the
 * authority.
 */

export { MAX_IN_FLIGHT, MAX_JITTER_MS, MAX_LATENCY_MS, OVERLOAD_STATUSES, SANDBOX_SERVICES, type OverloadStatus, type SandboxService };

export interface ServiceLatency {
  readonly delayMs: number;
  readonly jitterMs: number;
}

/** The settings in force: every service present, no cap when `maxInFlight` is null. */
export interface SandboxLoad {
  readonly latency: Readonly<Record<SandboxService, ServiceLatency>>;
  readonly maxInFlight: number | null;
  readonly overloadStatus: OverloadStatus;
}

const LatencySchema = Type.Object(
  {
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LATENCY_MS })),
    jitterMs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_JITTER_MS })),
  },
  { additionalProperties: false },
);

/**
 * A change of the settings: what is given replaces what is in force, the
 * rest stays. `latency.all` applies to every service first, then the named
 * services; `maxInFlight: null` removes the cap.
 */
export const LoadSchema = Type.Object(
  {
    latency: Type.Optional(
      Type.Object(
        {
          all: Type.Optional(LatencySchema),
          auth: Type.Optional(LatencySchema),
          reception: Type.Optional(LatencySchema),
          rfce: Type.Optional(LatencySchema),
          status: Type.Optional(LatencySchema),
        },
        { additionalProperties: false },
      ),
    ),
    maxInFlight: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_IN_FLIGHT }), Type.Null()])),
    overloadStatus: Type.Optional(Type.Union(OVERLOAD_STATUSES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);
export type SandboxLoadInput = Static<typeof LoadSchema>;

const NO_LATENCY: ServiceLatency = { delayMs: 0, jitterMs: 0 };

/** The default: no delay, no cap, 503 if a cap is set without saying what to answer. */
export const NO_LOAD: SandboxLoad = {
  latency: { auth: NO_LATENCY, reception: NO_LATENCY, rfce: NO_LATENCY, status: NO_LATENCY },
  maxInFlight: null,
  overloadStatus: '503',
};

/** `current` with `change` applied (see LoadSchema); bounds are checked by the callers' schema. */
export function applyLoad(current: SandboxLoad, change: SandboxLoadInput): SandboxLoad {
  const latency = { ...current.latency };
  for (const service of SANDBOX_SERVICES) {
    for (const given of [change.latency?.all, change.latency?.[service]]) {
      if (given) latency[service] = { delayMs: given.delayMs ?? latency[service].delayMs, jitterMs: given.jitterMs ?? latency[service].jitterMs };
    }
  }
  return {
    latency,
    maxInFlight: change.maxInFlight === undefined ? current.maxInFlight : change.maxInFlight,
    overloadStatus: change.overloadStatus ?? current.overloadStatus,
  };
}

/** `change` applied to `current`, after checking it; an error names the first wrong fields. */
export function checkedLoad(current: SandboxLoad, change: SandboxLoadInput, name: string): SandboxLoad {
  if (!Value.Check(LoadSchema, change)) {
    throw new Error(`invalid sandbox ${name}: ${schemaErrors(LoadSchema, change).slice(0, 3).join('; ')}`);
  }
  return applyLoad(current, change);
}

const ENVIRONMENT_PATH = /^\/(?:testecf|certecf|ecf)\/([^/?#]*)(?:\/([^/?#]*))?/i;

/**
 * The service a request path belongs to, or null when it is not the
 * authority's (control routes, the sandbox taxpayer's receiver, anything
 * outside an environment). Unknown paths under an environment count as
 * queries: the authority's 404 costs a round trip too.
 */
export function serviceOf(url: string): SandboxService | null {
  const m = ENVIRONMENT_PATH.exec(url);
  if (!m) return null;
  const first = m[1]!.toLowerCase();
  if (first === 'autenticacion') return 'auth';
  if (first === 'recepcionfc') return 'rfce';
  // e-CF reception, ANECF and ACECF are uploads to the main host's reception services.
  if (first === 'recepcion' || first === 'anulacionrangos' || first === 'aprobacioncomercial') return 'reception';
  return 'status';
}

/** Waits `ms` (already jittered) for a request of `service`; injected so tests see the delays without timing them. */
export type SandboxDelay = (ms: number, service: SandboxService) => Promise<void>;

export interface LoadStats {
  /** Requests answered 429/503 because the cap was reached. */
  overloaded: number;
  /** Requests delayed (latency above zero drawn). */
  delayed: number;
  /** The most requests in flight at once since the start (or reset). */
  maxInFlightSeen: number;
}

/**
 * Counts the authority's requests in flight and decides, for each new one,
 * whether it is refused (over the cap) and how long it waits. A request is in
 * flight from its arrival, its wait included, until its response ends or its
 * connection closes.
 */
export class LoadGate {
  #load: SandboxLoad;
  #inFlight = 0;
  #mixedTurn = 0;
  readonly #random: () => number;
  readonly stats: LoadStats = { overloaded: 0, delayed: 0, maxInFlightSeen: 0 };

  constructor(load: SandboxLoad, random: () => number = Math.random) {
    this.#load = load;
    this.#random = random;
  }

  get load(): SandboxLoad {
    return this.#load;
  }

  set load(next: SandboxLoad) {
    this.#load = next;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Counters back to zero; requests still in flight stay counted. */
  resetStats(): void {
    this.stats.overloaded = 0;
    this.stats.delayed = 0;
    this.stats.maxInFlightSeen = this.#inFlight;
  }

  /**
   * Admits a request: null when the cap refuses it (with the status to
   * answer), otherwise the delay it must wait and the function that ends its
   * time in flight (call it once, when the exchange is over).
   */
  admit(service: SandboxService): { refused: 429 | 503 } | { delayMs: number; leave: () => void } {
    const { maxInFlight, overloadStatus, latency } = this.#load;
    if (maxInFlight !== null && this.#inFlight >= maxInFlight) {
      this.stats.overloaded++;
      return { refused: overloadStatus === 'mixed' ? (this.#mixedTurn++ % 2 === 0 ? 429 : 503) : overloadStatus === '429' ? 429 : 503 };
    }
    this.#inFlight++;
    if (this.#inFlight > this.stats.maxInFlightSeen) this.stats.maxInFlightSeen = this.#inFlight;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.#inFlight--;
    };
    const { delayMs, jitterMs } = latency[service];
    const ms = delayMs + (jitterMs > 0 ? Math.floor(this.#random() * (jitterMs + 1)) : 0);
    if (ms > 0) this.stats.delayed++;
    return { delayMs: ms, leave };
  }
}

/** The bodies the authority's front end (IIS) writes for these statuses. */
export const OVERLOAD_BODY: Record<429 | 503, string> = {
  429: '<!DOCTYPE html><html><head><title>Too Many Requests</title></head><body><h1>Too Many Requests</h1><p>HTTP Error 429. The service is busy; try again later.</p></body></html>',
  503: '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>HTTP Error 503. The service is unavailable.</p></body></html>',
};
