import type { Engine } from '../engine-types.js';
import { applyMaintenanceWindows, contingencyState, type ContingencyState } from './contingency.js';
import { authorityStatus, readStatusSnapshot } from '../taxauth/authority-status.js';
import { statusKeyInfo } from '../taxauth/status-key.js';

/** How often the watch looks at the clock against the announced windows (no call to the host unless the snapshot is older than its TTL). */
export const WATCH_INTERVAL_MS = 60_000;

/**
 * One look: refresh the snapshot if it is older than its TTL (or, while a
 * window's contingency waits for the authority, if it predates the
 * window's end), then start or end contingency as the windows say.
 * Without a key it does nothing.
 */
export async function watchTick(engine: Engine): Promise<ContingencyState | null> {
  if (!(await statusKeyInfo(engine)).configured) return null;
  const state = await contingencyState(engine.db);
  const now = engine.clock.now().getTime();
  const waitingForEnd = state.active && state.source === 'window' && !!state.windowEndsAt && now >= Date.parse(state.windowEndsAt);
  const snapshot = waitingForEnd ? await readStatusSnapshot(engine) : null;
  const predatesEnd = waitingForEnd && (!snapshot || Date.parse(snapshot.checkedAt) < Date.parse(state.windowEndsAt!));
  await authorityStatus(engine, { refresh: predatesEnd ? 'now' : 'stale' });
  return applyMaintenanceWindows(engine);
}

export interface StatusWatch {
  /** Stops; resolves once a tick in flight has ended, so the store can be closed after. */
  stop(): Promise<void>;
}

/**
 * The watch of a long-running process (`ecf serve`): a tick now and every
 * `intervalMs`, never two at once; errors go to `onError` and the watch
 * goes on. Its timer does not keep the process alive.
 */
export function startStatusWatch(engine: Engine, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): StatusWatch {
  const interval = options.intervalMs ?? WATCH_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();
  const run = async () => {
    ticking = watchTick(engine).then(
      () => undefined,
      (e: unknown) => options.onError?.(e),
    );
    await ticking;
    if (!stopped) {
      timer = setTimeout(run, interval);
      timer.unref();
    }
  };
  timer = setTimeout(run, 0);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      return ticking;
    },
  };
}
