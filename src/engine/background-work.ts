import type { Engine } from './engine-types.js';
import { RECEIVERS_CONCURRENCY } from './reception/rules.js';
import { getSetting } from './settings/settings.js';
import { releaseDeliveries, takeOverDeadDeliveries, webhookSource, type AttemptResult } from './webhooks/delivery.js';
import { WEBHOOKS_CONCURRENCY } from './webhooks/rules.js';
import { WORK_HANDLERS } from './work-handlers.js';
import { RECEIVERS_GROUP, WEBHOOKS_GROUP } from './work/lanes.js';
import { pump, type PumpStats } from './work/pump.js';
import { listenForWork } from './work/notify.js';
import { leaseOwnerName, releaseLeases, takeOverDeadClaims } from './work/queue.js';
import { TRANSPORT_LADDER_MS } from './submission/rules.js';
import { resumeAfterHolderDied, SUBMIT_KIND } from './submission/submit.js';
import { workTableSource, type ItemResult } from './work/run.js';

/** Work without a lane (written before lanes existed) runs a few at a time. */
const DEFAULT_GROUP_CONCURRENCY = 8;

/** The concurrency bound of each group: the setting for the authority's environments, fixed ones for the rest. */
export async function groupBounds(engine: Engine): Promise<(group: string) => number> {
  const taxauth = await getSetting(engine, 'taxauth.concurrency');
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
  /**
   * As stop, but once `handBack` aborts the calls still in flight are no
   * longer waited for: what they hold is handed back (leases freed, unclear
   * marks kept) and it resolves with how many work items and webhook
   * deliveries were handed back (0 when everything ended in time).
   */
  stopWithin(handBack: AbortSignal): Promise<{ readonly handedBack: number }>;
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
  const owner = options.owner ?? leaseOwnerName('work');
  await takeOverFromTheDead(engine);
  const listener = await listenForWork(engine);
  const running = runBackgroundWork(engine, { ...options, owner, signal: stop.signal }).finally(() => listener.close());
  return {
    stop: () => {
      stop.abort();
      return running;
    },
    stopWithin: async (handBack) => {
      stop.abort();
      // Read now: the store may be closed by the time the deadline comes.
      const timeoutMs = await getSetting(engine, 'taxauth.timeout_ms');
      const handedBackAt = new Promise<'hand back'>((resolve) => {
        if (handBack.aborted) resolve('hand back');
        else handBack.addEventListener('abort', () => resolve('hand back'), { once: true });
      });
      if ((await Promise.race([running, handedBackAt])) !== 'hand back') return { handedBack: 0 };
      await listener.close();
      // A send abandoned now may still be processed by the authority: its item falls due when a
      // send that timed out would be asked about (the timeout, then the transport ladder's first
      // step), and its unclear mark makes whoever claims it ask before sending again.
      const now = engine.clock.now();
      const dueAt = new Date(now.getTime() + timeoutMs + TRANSPORT_LADDER_MS[0]);
      const items = await releaseLeases(engine.db, now, owner, dueAt);
      const deliveries = await releaseDeliveries(engine.db, owner);
      engine.log.warn({ items, deliveries, dueAt: dueAt.toISOString() }, `stopping: handed back ${items} work item(s) and ${deliveries} webhook delivery(ies) still in flight`);
      return { handedBack: items + deliveries };
    },
  };
}

/**
 * At start: what a process of this machine (or node) that was killed still
 * holds is taken over now rather than when its leases run out (minutes for a
 * send). Its sends in flight keep their unclear mark, so they are asked about
 * before they are sent again, from when the dead process would have asked.
 */
async function takeOverFromTheDead(engine: Engine): Promise<void> {
  const now = engine.clock.now();
  const timeoutMs = await getSetting(engine, 'taxauth.timeout_ms');
  const items = await takeOverDeadClaims(engine.db, now, (item) => (item.kind === SUBMIT_KIND ? resumeAfterHolderDied(item, now, timeoutMs) : null));
  const deliveries = await takeOverDeadDeliveries(engine.db, now);
  if (items.length + deliveries === 0) return;
  const holders = [...new Set(items.map((i) => i.leaseOwner))];
  engine.log.warn(
    { items: items.length, deliveries, holders },
    `took over ${items.length} work item(s) and ${deliveries} webhook delivery(ies) held by process(es) that ended without handing them back; sends they had in flight are asked about before any resend`,
  );
}
