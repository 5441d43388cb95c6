import { Parser } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { describeSandboxLoad, sandboxLoadFlags, sandboxLoadFromFlags } from '../../src/cli/sandbox-flags.js';
import { ValidationError } from '../../src/engine/errors.js';
import { NO_LOAD, applyLoad } from '../../src/sandbox/index.js';

const parse = async (argv: string[]) => (await Parser.parse(argv, { flags: sandboxLoadFlags, strict: true })).flags;

describe('sandbox load flags', () => {
  it('set nothing when none is given', async () => {
    expect(sandboxLoadFromFlags(await parse([]))).toBeUndefined();
    expect(describeSandboxLoad(undefined)).toBe('');
  });

  it('set a latency and jitter for every service, per-service delays over it, the cap and the answer over it', async () => {
    const flags = await parse(['--latency', '300', '--jitter', '100', '--latency-rfce', '50', '--latency-status', '0', '--max-in-flight', '64', '--overload-status', 'mixed']);
    const load = sandboxLoadFromFlags(flags)!;
    expect(load).toEqual({
      latency: { all: { delayMs: 300, jitterMs: 100 }, rfce: { delayMs: 50 }, status: { delayMs: 0 } },
      maxInFlight: 64,
      overloadStatus: 'mixed',
    });
    // The per-service flags change the delay only; the jitter stays the one of --jitter.
    expect(applyLoad(NO_LOAD, load)).toEqual({
      latency: {
        auth: { delayMs: 300, jitterMs: 100 },
        reception: { delayMs: 300, jitterMs: 100 },
        rfce: { delayMs: 50, jitterMs: 100 },
        status: { delayMs: 0, jitterMs: 100 },
      },
      maxInFlight: 64,
      overloadStatus: 'mixed',
    });
    expect(describeSandboxLoad(load)).toBe('latency 300 ms + jitter ≤ 100 ms, rfce 50 ms, status 0 ms, at most 64 in flight, then mixed');
  });

  it('alone, a per-service flag delays that service only', async () => {
    const load = sandboxLoadFromFlags(await parse(['--latency-reception', '250']))!;
    expect(applyLoad(NO_LOAD, load).latency).toEqual({
      auth: { delayMs: 0, jitterMs: 0 },
      reception: { delayMs: 250, jitterMs: 0 },
      rfce: { delayMs: 0, jitterMs: 0 },
      status: { delayMs: 0, jitterMs: 0 },
    });
  });

  it('are refused by oclif out of bounds, naming the flag', async () => {
    for (const [argv, flag] of [
      [['--latency', '-5'], '--latency'],
      [['--latency', '120001'], '--latency'],
      [['--jitter', 'lots'], '--jitter'],
      [['--latency-auth', '1.5'], '--latency-auth'],
      [['--max-in-flight', '0'], '--max-in-flight'],
      [['--overload-status', '500'], '--overload-status'],
    ] as const) {
      await expect(parse([...argv]), argv.join(' ')).rejects.toThrow(flag);
    }
  });

  it('are checked again by sandboxLoadFromFlags for values built by hand, every wrong flag named at once', () => {
    let error: unknown;
    try {
      sandboxLoadFromFlags({ latency: -1, 'latency-status': 200_000, 'max-in-flight': 0, 'overload-status': '500', jitter: 2.5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const v = error as ValidationError;
    expect(v.errors.map((e) => e.path)).toEqual(['--latency', '--jitter', '--latency-status', '--max-in-flight', '--overload-status']);
    expect(v.message).toContain('--latency must be a whole number from 0 to 120000, not -1');
    expect(v.message).toContain('--overload-status must be one of 429, 503, mixed, not 500');
  });
});
