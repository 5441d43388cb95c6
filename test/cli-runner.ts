import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** The built `ecf` binary (`npm test` builds dist first). */
export const BIN = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'bin/ecf.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `ecf <args> --data-dir <dir>` as a child process with `input` on stdin (a
 * pipe, never a TTY) and none of the caller's ECF_* variables but `env`'s.
 */
export function cliFor(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete env[k];
  Object.assign(env, extraEnv);
  function ecf(args: string[], input = ''): Promise<CliResult> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [BIN, ...args, '--data-dir', dataDir], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', fail);
      child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input, 'utf8');
    });
  }
  /** With `--json`; expects exit `code` (0 by default) and returns the parsed output. */
  async function json<T = any>(args: string[], input?: string, code = 0): Promise<T> {
    const r = await ecf([...args, '--json'], input);
    expect(r.code, `ecf ${args.join(' ')} --json exited ${r.code}:\n${r.stderr}${r.stdout}`).toBe(code);
    return JSON.parse(r.stdout) as T;
  }
  return { ecf, json };
}
