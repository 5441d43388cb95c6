import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { Readable } from 'node:stream';
import { format } from 'node:util';

/**
 * Runs a CLI program (the bundle's `main`) inside the test's own process, as
 * if it were `node bin/ecf.js <args>` in a child: its own argv, environment,
 * working directory and piped (non-TTY) stdin; stdout and stderr captured;
 * process.exit and process.exitCode give the code instead of ending the
 * worker. Whatever the call leaves behind that would keep a process running
 * (ref'd timers and immediates) or answer its signals (signal, exit and
 * beforeExit listeners), and the listeners it put on stdout and stderr, are
 * removed when it ends, as the end of a process would. Calls
 * run one at a time (a queue): process-wide state can hold one program only.
 *
 * What it is not: a new process. Modules stay loaded between calls, so state
 * a module keeps per process (caches, the keep-alive agent, the keychain
 * probe) carries over, and the pid is the worker's. Tests about the process
 * itself (signals, a TTY, start-up, crashes, long-running commands, Node
 * options read at start such as NODE_EXTRA_CA_CERTS) spawn the binary.
 */

export type Program = () => Promise<unknown>;

export interface InProcessCall {
  /** argv after `node bin/ecf.js`. */
  readonly args: readonly string[];
  /** The whole environment the program sees (process.env is this, for the call). */
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string | Buffer;
  readonly cwd?: string;
  /** What process.argv[1] says (the binary's path). */
  readonly bin: string;
}

export interface InProcessResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Marks the async context of the running program: its writes are captured, its timers cleared. */
const inCall = new AsyncLocalStorage<Capture>();

interface Capture {
  readonly stdout: Buffer[];
  readonly stderr: Buffer[];
  /** Set once the program called process.exit: later output is dropped, as a dead process writes nothing. */
  exitCode: number | undefined;
  readonly timers: Set<NodeJS.Timeout | NodeJS.Immediate>;
}

const SIGNAL_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGBREAK', 'exit', 'beforeExit'] as const;
/** Listeners a program may leave on stdout and stderr (oclif's flush waits for a 'drain' that a captured write never needs). */
const STREAM_EVENTS = ['drain', 'error', 'close', 'finish'] as const;

type Emitter = Pick<NodeJS.EventEmitter, 'listeners' | 'removeListener'>;

/** The listeners `emitter` has now for `events`; calling the result removes any added since. */
function listenersKept(emitter: Emitter, events: readonly string[]): () => void {
  const before = new Map(events.map((e) => [e, new Set(emitter.listeners(e))]));
  return () => {
    for (const [event, had] of before) for (const l of emitter.listeners(event)) if (!had.has(l)) emitter.removeListener(event, l as (...a: unknown[]) => void);
  };
}

/** Timers and immediates made inside a call, so the ones still pending when it ends can be cleared. */
const timerHook = createHook({
  init(_id, type, _trigger, resource) {
    if (type !== 'Timeout' && type !== 'Immediate') return;
    inCall.getStore()?.timers.add(resource as NodeJS.Timeout | NodeJS.Immediate);
  },
});

let queue: Promise<unknown> = Promise.resolve();

/** Runs `program` as one CLI invocation, after any call already running. */
export function runInProcess(program: Program | (() => Promise<Program>), call: InProcessCall, loader = false): Promise<InProcessResult> {
  const next = queue.then(() => runNow(program, call, loader));
  queue = next.catch(() => undefined);
  return next;
}

function toBuffer(chunk: unknown, encoding?: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

/** A write function that keeps what the program writes and passes anything else (the test's own output) through. */
function capturing(original: NodeJS.WriteStream['write'], pick: (c: Capture) => Buffer[]): NodeJS.WriteStream['write'] {
  return function write(this: NodeJS.WriteStream, chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const capture = inCall.getStore();
    if (!capture) return (original as (...a: unknown[]) => boolean).call(this, chunk, encoding, cb);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (capture.exitCode === undefined) pick(capture).push(toBuffer(chunk, encoding));
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  } as NodeJS.WriteStream['write'];
}

type ConsoleMethod = 'log' | 'info' | 'debug' | 'warn' | 'error' | 'trace';
const CONSOLE_TO_STDOUT: ConsoleMethod[] = ['log', 'info', 'debug'];
const CONSOLE_TO_STDERR: ConsoleMethod[] = ['warn', 'error', 'trace'];

/** A stream's TTY-ness as a child with piped stdio sees it: none. */
function asPipe(stream: NodeJS.WriteStream | NodeJS.ReadStream): () => void {
  const saved = ['isTTY', 'columns', 'rows'].map((k) => [k, Object.getOwnPropertyDescriptor(stream, k)] as const);
  for (const [k] of saved) Object.defineProperty(stream, k, { value: undefined, configurable: true, writable: true });
  return () => {
    for (const [k, d] of saved) {
      if (d) Object.defineProperty(stream, k, d);
      else delete (stream as unknown as Record<string, unknown>)[k];
    }
  };
}

async function runNow(program: Program | (() => Promise<Program>), call: InProcessCall, loader: boolean): Promise<InProcessResult> {
  const capture: Capture = { stdout: [], stderr: [], exitCode: undefined, timers: new Set() };
  const saved = {
    argv: process.argv,
    env: process.env,
    exitCode: process.exitCode,
    exit: process.exit,
    cwd: process.cwd(),
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin'),
    console: Object.fromEntries([...CONSOLE_TO_STDOUT, ...CONSOLE_TO_STDERR].map((m) => [m, console[m]])) as Record<ConsoleMethod, (...a: unknown[]) => void>,
  };
  const dropListeners = [listenersKept(process, SIGNAL_EVENTS), listenersKept(process.stdout, STREAM_EVENTS), listenersKept(process.stderr, STREAM_EVENTS)];
  const stdin = Readable.from(call.input === undefined || call.input.length === 0 ? [] : [toBuffer(call.input)], { objectMode: false });
  const restoreTty = [asPipe(process.stdout), asPipe(process.stderr)];
  process.argv = [process.execPath, call.bin, ...call.args];
  process.env = { ...call.env };
  process.exitCode = undefined;
  process.exit = ((code?: number | string | null) => {
    const store = inCall.getStore() ?? capture;
    store.exitCode ??= code === undefined || code === null ? Number(process.exitCode ?? 0) : Number(code);
  }) as typeof process.exit;
  process.stdout.write = capturing(saved.stdoutWrite, (c) => c.stdout);
  process.stderr.write = capturing(saved.stderrWrite, (c) => c.stderr);
  for (const m of [...CONSOLE_TO_STDOUT, ...CONSOLE_TO_STDERR]) {
    const to = CONSOLE_TO_STDOUT.includes(m) ? 'stdout' : 'stderr';
    const original = saved.console[m];
    console[m] = (...a: unknown[]) => {
      const c = inCall.getStore();
      if (!c) return original.apply(console, a);
      if (c.exitCode === undefined) c[to].push(Buffer.from(`${format(...a)}\n`));
    };
  }
  Object.defineProperty(process, 'stdin', { configurable: true, enumerable: saved.stdin?.enumerable ?? true, get: () => stdin });
  if (call.cwd) process.chdir(call.cwd);
  timerHook.enable();
  let thrown: unknown;
  try {
    await inCall.run(capture, async () => {
      const run = loader ? await (program as () => Promise<Program>)() : (program as Program);
      await run();
    });
  } catch (err) {
    thrown = err;
  } finally {
    timerHook.disable();
    // What a process's end would take with it: the timers that would have kept it
    // running. Unref'd ones stay: a process does not wait for them, and some are a
    // module's own, kept for the next call (undici's timer wheel).
    for (const t of capture.timers) {
      if (!t.hasRef()) continue;
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    for (const drop of dropListeners) drop();
    stdin.destroy();
    const code = capture.exitCode ?? Number(process.exitCode ?? 0);
    capture.exitCode ??= code;
    process.chdir(saved.cwd);
    if (saved.stdin) Object.defineProperty(process, 'stdin', saved.stdin);
    for (const m of [...CONSOLE_TO_STDOUT, ...CONSOLE_TO_STDERR]) console[m] = saved.console[m];
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    for (const r of restoreTty) r();
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    process.env = saved.env;
    process.argv = saved.argv;
  }
  const stderr = Buffer.concat(capture.stderr).toString('utf8');
  // An error escaping the program is what Node prints for an uncaught one, with exit code 1.
  if (thrown !== undefined) return { code: 1, stdout: Buffer.concat(capture.stdout), stderr: `${stderr}${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}\n` };
  return { code: capture.exitCode ?? 0, stdout: Buffer.concat(capture.stdout), stderr };
}
