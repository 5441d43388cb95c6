import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { expect } from 'vitest';
import { runInProcess, type Program } from './cli-in-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The built `ecf` binary (`npm test` builds dist first). */
export const BIN = join(ROOT, 'bin/ecf.js');
/** The bundle bin/ecf.js runs: in-process calls run the same built program. */
export const BUNDLE = join(ROOT, 'dist/bundle/ecf.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RawCliResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface RunOptions {
  /** The whole environment of the command. */
  readonly env: NodeJS.ProcessEnv;
  /** Piped to stdin (never a TTY); empty by default. */
  readonly input?: string | Buffer;
  readonly cwd?: string;
  /** Run `node bin/ecf.js` as a child process instead of in-process. */
  readonly spawn?: boolean;
}

/**
 * Set ECF_TEST_CLI=spawn to run every CLI call of a run as a child process,
 * as all of them did before they ran in-process (to compare the two).
 */
const ALWAYS_SPAWN = process.env.ECF_TEST_CLI === 'spawn';

/**
 * Variables Node reads once, when a process starts (NODE_EXTRA_CA_CERTS,
 * NODE_OPTIONS, ...): a call that sets one runs in a child, where they apply.
 */
const readAtStart = (extraEnv: NodeJS.ProcessEnv) => Object.keys(extraEnv).some((k) => k.startsWith('NODE_'));

/**
 * Commands that run until stopped (a server, a watcher, a follower): a child
 * process, so a test can never leave one running inside its worker, and what
 * such a test checks (a port in use, a refused start) is the real process's exit.
 */
export const runsUntilStopped = (args: readonly string[]): boolean =>
  args[0] === 'serve' || args[0] === 'sandbox' || (args[0] === 'watch' && !args.includes('--once')) || (args[0] === 'certify' && args.includes('--follow'));

// Imported by Node itself, not through vitest's module runner: the bundle is
// loaded as bin/ecf.js loads it, and once per test file's worker.
const nativeImport = createRequire(import.meta.url)('./native-import.cjs') as (url: string) => Promise<{ main: Program }>;
let program: Promise<Program> | undefined;
const loadProgram = () => (program ??= nativeImport(pathToFileURL(BUNDLE).href).then((m) => m.main));

/** `ecf <args>` with `options.env`, in-process unless asked to spawn; never throws on a non-zero exit. */
export function runEcf(args: readonly string[], options: RunOptions): Promise<RawCliResult> {
  // A worker thread cannot change the working directory (vitest's threads pool): a child can.
  const cwdUnavailable = options.cwd !== undefined && !isMainThread;
  if (options.spawn || ALWAYS_SPAWN || runsUntilStopped(args) || cwdUnavailable) return spawnEcf(args, options);
  return runInProcess(loadProgram, { args, env: options.env, bin: BIN, ...(options.input !== undefined && { input: options.input }), ...(options.cwd && { cwd: options.cwd }) }, true);
}

/** `node bin/ecf.js <args>` as a child process: for tests of the binary itself. */
export function spawnEcf(args: readonly string[], options: RunOptions): Promise<RawCliResult> {
  return spawnNode([BIN, ...args], options);
}

/** `node <args>` (this test run's node) as a child process, from the project's root unless `options.cwd`. */
export function spawnNode(args: readonly string[], options: Omit<RunOptions, 'spawn'>): Promise<RawCliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: options.env, cwd: options.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** The caller's environment with NO_COLOR and none of its ECF_* variables but the keyring session's, then `extraEnv`. */
export function cliEnv(extraEnv: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete env[k];
  return Object.assign(env, extraEnv);
}

/**
 * `ecf <args> --data-dir <dir>` with `input` on stdin (a pipe, never a TTY)
 * and none of the caller's ECF_* variables but `env`'s. In-process by
 * default (the built bundle, inside the test's worker); `{ spawn: true }`
 * here or per call runs the binary as a child process, for tests of the
 * process itself (signals, TTY, exit paths, start-up, long-running commands).
 */
export function cliFor(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}, defaults: { readonly spawn?: boolean } = {}) {
  const env = cliEnv(extraEnv);
  const spawnAll = defaults.spawn === true || readAtStart(extraEnv);
  async function ecf(args: string[], input = '', options: { readonly spawn?: boolean } = {}): Promise<CliResult> {
    const r = await runEcf([...args, '--data-dir', dataDir], { env, input, spawn: options.spawn ?? spawnAll });
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
  }
  /** With `--json`; expects exit `code` (0 by default) and returns the parsed output. */
  async function json<T = any>(args: string[], input?: string, code = 0): Promise<T> {
    const r = await ecf([...args, '--json'], input);
    expect(r.code, `ecf ${args.join(' ')} --json exited ${r.code}:\n${r.stderr}${r.stdout}`).toBe(code);
    return JSON.parse(r.stdout) as T;
  }
  return { ecf, json };
}
