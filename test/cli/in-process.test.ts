import { describe, expect, it } from 'vitest';
import { runInProcess, type InProcessCall } from '../cli-in-process.js';
import { BIN, cliEnv, runEcf } from '../cli-runner.js';
import { tempDir } from '../helpers.js';

/**
 * The in-process CLI runner (test/cli-in-process.ts), which most CLI tests
 * use instead of a child process: the built program gives the same code,
 * stdout and stderr as the binary, and a call leaves the test's process as
 * it found it.
 */

const call = (over: Partial<InProcessCall> = {}): InProcessCall => ({ args: [], env: { ...process.env }, bin: BIN, ...over });

describe('ecf run in-process', () => {
  it('gives what the binary gives: output, errors and exit codes', async () => {
    // A data directory per command: the binaries run at once, and each is the first to open its store.
    const dataDir = () => tempDir('ecf-inproc-');
    const env = cliEnv();
    // One of each way out: a result (text), an engine error (its exit code, the JSON error),
    // oclif's own error (a flag it does not know), a command reading stdin.
    const runs: string[][] = [
      ['org', 'list', '--data-dir', dataDir()],
      ['show', 'E310000000001', '--json', '--data-dir', dataDir()],
      ['issue', '--no-such-flag', '--data-dir', dataDir()],
      ['restore', tempDir('ecf-inproc-none-'), '--passphrase-stdin', '--data-dir', tempDir('ecf-inproc-target-')],
    ];
    const spawned = await Promise.all(runs.map((args) => runEcf(args, { env, input: 'passphrase\n', spawn: true })));
    for (const [i, args] of runs.entries()) {
      const inProcess = await runEcf(args, { env, input: 'passphrase\n' });
      expect({ args, code: inProcess.code, stdout: inProcess.stdout.toString('utf8'), stderr: inProcess.stderr }).toEqual({
        args,
        code: spawned[i]!.code,
        stdout: spawned[i]!.stdout.toString('utf8'),
        stderr: spawned[i]!.stderr,
      });
    }
    expect(spawned.map((r) => r.code)).toEqual([0, 2, 2, 1]);
  }, 120_000);

  it('takes the exit code from process.exitCode and process.exit without ending the worker, and restores both', async () => {
    const exitBefore = process.exit;
    const set = await runInProcess(async () => {
      process.exitCode = 7;
    }, call());
    expect(set.code).toBe(7);
    const exited = await runInProcess(async () => {
      process.stdout.write('before\n');
      process.exit(5);
      process.stdout.write('after\n');
    }, call());
    expect(exited).toMatchObject({ code: 5 });
    expect(exited.stdout.toString('utf8')).toBe('before\n');
    expect(process.exitCode).toBeUndefined();
    expect(process.exit).toBe(exitBefore);
    const thrown = await runInProcess(async () => {
      throw new Error('boom');
    }, call());
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain('Error: boom');
  });

  it('shows the program its own env, argv and a piped stdin, and captures stdout, stderr and the console', async () => {
    process.env.ECF_CALLERS_OWN = 'caller';
    try {
      const r = await runInProcess(async () => {
        let input = '';
        for await (const chunk of process.stdin) input += String(chunk);
        process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), given: process.env.ECF_GIVEN, caller: process.env.ECF_CALLERS_OWN ?? null, tty: process.stdin.isTTY === true, input }));
        process.stderr.write('to stderr\n');
        console.error('console error');
        console.log('console log');
      }, call({ args: ['x', '--y'], env: { ECF_GIVEN: 'given' }, input: 'piped\n' }));
      const [json, log] = r.stdout.toString('utf8').split(/(?<=\})/);
      expect(JSON.parse(json!)).toEqual({ argv: [BIN, 'x', '--y'], given: 'given', caller: null, tty: false, input: 'piped\n' });
      expect(log).toBe('console log\n');
      expect(r.stderr).toBe('to stderr\nconsole error\n');
      expect(process.env.ECF_GIVEN).toBeUndefined();
      expect(process.env.ECF_CALLERS_OWN).toBe('caller');
    } finally {
      delete process.env.ECF_CALLERS_OWN;
    }
  });

  it('clears the timers that would keep a process running and the signal and stdout listeners a call leaves behind, and only those', async () => {
    const mine = setInterval(() => undefined, 60_000);
    const signalsBefore = process.listenerCount('SIGINT');
    const drainsBefore = process.stdout.listenerCount('drain');
    let left: NodeJS.Timeout | undefined;
    let unrefd: NodeJS.Timeout | undefined;
    try {
      await runInProcess(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        left = setInterval(() => undefined, 60_000);
        unrefd = setTimeout(() => undefined, 60_000).unref();
        process.once('SIGINT', () => undefined);
        process.on('SIGTERM', () => undefined);
        process.stdout.once('drain', () => undefined);
      }, call());
      expect((left as unknown as { _destroyed: boolean })._destroyed).toBe(true);
      expect((mine as unknown as { _destroyed: boolean })._destroyed).toBe(false);
      // An unref'd timer holds no process open: a module may keep one across calls.
      expect((unrefd as unknown as { _destroyed: boolean })._destroyed).toBe(false);
      clearTimeout(unrefd);
      expect(process.listenerCount('SIGINT')).toBe(signalsBefore);
      expect(process.listeners('SIGTERM').length).toBe(0);
      expect(process.stdout.listenerCount('drain')).toBe(drainsBefore);
    } finally {
      clearInterval(mine);
    }
  });

  it('runs two calls of one test one after the other, each with its own env and output; the test’s own writes are not theirs', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = 0;
    const program = async () => {
      started++;
      await gate;
      process.stdout.write(`${process.env.ECF_WHO}:${started}`);
    };
    const first = runInProcess(program, call({ env: { ECF_WHO: 'first' } }));
    const second = runInProcess(program, call({ env: { ECF_WHO: 'second' } }));
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write('');
    console.log('the test itself');
    open();
    expect((await first).stdout.toString('utf8')).toBe('first:1');
    expect((await second).stdout.toString('utf8')).toBe('second:2');
  });
});
