import type { Engine } from '../engine.js';
import { RECEIVERS_CONCURRENCY } from '../reception/rules.js';
import { getSetting } from '../settings/settings.js';
import { webhookSource, type AttemptResult } from '../webhooks/delivery.js';
import { WEBHOOKS_CONCURRENCY } from '../webhooks/rules.js';
import { WORK_HANDLERS } from './handlers.js';
import { RECEIVERS_GROUP, WEBHOOKS_GROUP } from './lanes.js';
import { pump, type PumpStats } from './pump.js';
import { listenForWork } from './notify.js';
import { leaseOwnerName } from './queue.js';
import { workTableSource, type ItemResult } from './run.js';

/** Work without a lane (written before lanes existed) runs a few at a time. */
const DEFAULT_GROUP_CONCURRENCY = 8;

/** The concurrency bound of each group: the setting for the authority's environments, fixed ones for the rest. */
export async function groupBounds(engine: Engine): Promise<(group: string) => number> {
  const taxauth = await getSetting<number>(engine, 'taxauth.concurrency');
  return (group) =>
    group.startsWith('taxauth:') ? taxauth : group === RECEIVERS_GROUP ? RECEIVERS_CONCURRENCY : group === WEBHOOKS_GROUP ? WEBHOOKS_CONCURRENCY : DEFAULT_GROUP_CONCURRENCY;
}

export interface BackgroundWorkOptions {
  readonly owner?: string;
  readonly signal?: AbortSignal;
  readonly untilIdle?: boolean;
  readonly pollMs?: number;
  readonly onItem?: (result: ItemResult) => void;
  readonly onDelivery?: (result: AttemptResult) => void;
  readonly onError?: (error: unknown, source: string) => void;
}

/**
 * All of the engine's durable network work through one pump: submissions
 * and ACECF deliveries (the work table) and webhook deliveries. `ecf serve`
 * runs it until stopped; tests and one-shot runs until nothing is due.
 */
export function runBackgroundWork(engine: Engine, options: BackgroundWorkOptions = {}): Promise<PumpStats> {
  const owner = options.owner ?? leaseOwnerName('work');
  return pump({
    sources: [
      workTableSource(engine, { owner, handlers: WORK_HANDLERS, onResult: options.onItem }),
      webhookSource(engine, { owner, onResult: options.onDelivery }),
    ],
    now: () => engine.clock.now(),
    bounds: () => groupBounds(engine),
    signal: options.signal,
    untilIdle: options.untilIdle,
    pollMs: options.pollMs,
    onError: options.onError,
  });
}

export interface RunningWork {
  /** Stops claiming; resolves once the calls in flight have ended and been recorded. */
  stop(): Promise<PumpStats>;
}

/**
 * The background work of a long-running process (`ecf serve`), in its own
 * thread of JavaScript: its commits ring the bell directly, and on
 * PostgreSQL other processes' commits arrive through LISTEN. It shares the
 * event loop with the HTTP server rather than taking a thread of its own:
 * its work is waiting on the network, and a second thread would cost the
 * engine's whole module graph again (about 55 MB) for little CPU.
 */
export async function startBackgroundWork(engine: Engine, options: Omit<BackgroundWorkOptions, 'signal' | 'untilIdle'> = {}): Promise<RunningWork> {
  const stop = new AbortController();
  const listener = await listenForWork(engine);
  const running = runBackgroundWork(engine, { ...options, signal: stop.signal }).finally(() => listener.close());
  return {
    stop: () => {
      stop.abort();
      return running;
    },
  };
}
