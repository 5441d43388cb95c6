import type { Engine } from '../engine-types.js';
import { ringWorkBell } from './bell.js';
import { WORK_CHANNEL } from './queue.js';

export interface WorkListener {
  close(): Promise<void>;
}

const RECONNECT_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

/**
 * On PostgreSQL, rings this thread's work bell whenever any process commits
 * new work (announceWork's NOTIFY), through a connection of its own that
 * LISTENs. A lost connection is opened again after a pause; meanwhile, and
 * always, the pump's polling is the fallback. On SQLite there is nothing to
 * listen to: only this process's commits ring, and other processes' work is
 * found by polling.
 */
export async function listenForWork(engine: Engine): Promise<WorkListener> {
  const url = engine.databaseUrl;
  if (engine.dialect !== 'postgres' || !url) return { close: async () => {} };
  const { default: pg } = await import('pg');
  let client: InstanceType<typeof pg.Client> | undefined;
  let closed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    c.on('notification', () => ringWorkBell());
    c.on('error', () => reconnect(c));
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`listen ${WORK_CHANNEL}`);
      client = c;
      failures = 0;
      // Work committed while no connection listened is found now rather than at the next poll.
      ringWorkBell();
    } catch {
      reconnect(c);
    }
  };
  const reconnect = (c: InstanceType<typeof pg.Client>) => {
    c.removeAllListeners();
    c.on('error', () => {});
    void c.end().catch(() => {});
    if (client === c) client = undefined;
    if (closed || timer) return;
    const wait = RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]!;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, wait);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
