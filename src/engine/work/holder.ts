import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a claim, written into its lease owner so that a process starting
 * later can tell whether the holder still runs instead of waiting out its
 * lease. A pid alone cannot say: after a crash it may be reused, and another
 * machine or container has pids of its own. So a holder is named by
 *
 * - the pid space it lives in (`node`): the boot's random id and the inode of
 *   its pid namespace. Processes of one machine (or of one container, or of
 *   containers sharing the host's pids) share it; other machines, reboots and
 *   other containers do not, and their holders are never judged from here.
 *   On PostgreSQL each node judges the claims of its own processes only.
 * - its pid and its start time (clock ticks after boot, /proc/PID/stat): a
 *   pid reused by a later process has a later start.
 *
 * Without /proc (not Linux) a holder carries no identity and its claims wait
 * out their lease, as before.
 */
export interface Holder {
  readonly node: string;
  readonly pid: number;
  readonly start: string;
}

/** The start time of a process, as the kernel counts it; null when it is not running (or there is no /proc). */
export function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null; // field 22, starttime
}

function readNode(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
    const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return boot && ns ? `${boot}.${ns}` : null;
  } catch {
    return null;
  }
}

let self: Holder | null | undefined;

/** This process as a holder; null where it cannot be named (no /proc). */
export function thisHolder(): Holder | null {
  if (self === undefined) {
    const node = readNode();
    const start = node ? processStart(process.pid) : null;
    self = node && start ? { node, pid: process.pid, start } : null;
  }
  return self;
}

/**
 * A lease owner's name: `label@host:pid:random`, then the holder's identity
 * when it has one (`~node~start`). Distinct per process and per call site.
 */
export function ownerName(label: string, random: string, holder: Holder | null = thisHolder()): string {
  const base = `${label}@${hostname()}:${holder?.pid ?? process.pid}:${random}`;
  return holder ? `${base}~${holder.node}~${holder.start}` : base;
}

const OWNER = /^[^@]*@.*:(\d+):[0-9a-f]*~([0-9a-f-]+\.\d+)~(\d+)$/;

/** The holder named in a lease owner; null for owners written without one (older versions, no /proc). */
export function holderOf(owner: string): Holder | null {
  const m = OWNER.exec(owner);
  return m ? { pid: Number(m[1]), node: m[2]!, start: m[3]! } : null;
}

/**
 * Whether the holder of a claim is gone, judged from this process: `dead`
 * only when it is certain (same pid space, and its pid is not running or runs
 * a process started at another time); `alive` when it is this process or
 * still runs; `unknown` for holders of another pid space or without identity,
 * whose claims must wait out their lease.
 */
export function holderState(owner: string, me: Holder | null = thisHolder()): 'dead' | 'alive' | 'unknown' {
  const holder = holderOf(owner);
  if (!holder || !me || holder.node !== me.node) return 'unknown';
  if (!running(holder.pid)) return 'dead';
  // Running: the same process, or a later one given its pid. /proc may hide other users' processes
  // (hidepid): then nothing can be told.
  const start = processStart(holder.pid);
  return start === null ? 'unknown' : start === holder.start ? 'alive' : 'dead';
}

/** Whether a process with this pid exists, whoever owns it (signal 0 is only checked, never sent). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
