/**
 * The in-process wake-up of the work pumps. Whatever commits new work (an
 * e-CF to submit, a webhook delivery, an ACECF to deliver) rings the bell
 * after its commit; a pump waiting for due work looks again at once instead
 * of at its next poll. Per thread: `ecf serve` relays rings from the HTTP
 * thread to the job thread, and on PostgreSQL other processes' commits
 * arrive through LISTEN/NOTIFY (work/notify.ts).
 */

type Listener = () => void;
const listeners = new Set<Listener>();
let rung = false;

/** Calls every listener once, on the next turn of the event loop, however many rings came before it. */
export function ringWorkBell(): void {
  if (rung || listeners.size === 0) return;
  rung = true;
  queueMicrotask(() => {
    rung = false;
    for (const listener of [...listeners]) listener();
  });
}

/** Subscribes to the bell; returns the unsubscribe function. */
export function onWorkBell(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
