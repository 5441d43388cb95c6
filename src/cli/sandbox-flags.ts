import { Flags } from '@oclif/core';
import { ValidationError } from '../engine/errors.js';
// Only the bounds and the types: the sandbox itself is loaded when a command runs, not on every start of `ecf`.
import { MAX_IN_FLIGHT, MAX_JITTER_MS, MAX_LATENCY_MS, OVERLOAD_STATUSES, SANDBOX_SERVICES, type OverloadStatus } from '../sandbox/load-limits.js';
import type { SandboxLoadInput } from '../sandbox/load.js';

/**
 * The flags that set the sandbox's latency and limits at start, shared by
 * `ecf sandbox` and `ecf serve --sandbox`; `sandboxLoadFromFlags` turns
 * their values into the sandbox's `load` option.
 */
export const sandboxLoadFlags = {
  latency: Flags.integer({
    description: 'Milliseconds every authority request waits before it is answered (all services)',
    helpValue: 'MS',
    min: 0,
    max: MAX_LATENCY_MS,
    helpGroup: 'SANDBOX LOAD',
  }),
  jitter: Flags.integer({
    description: 'Up to this many milliseconds more, drawn uniformly per request (all services)',
    helpValue: 'MS',
    min: 0,
    max: MAX_JITTER_MS,
    helpGroup: 'SANDBOX LOAD',
  }),
  'latency-auth': Flags.integer({ description: 'Latency of the seed and token services, instead of --latency', helpValue: 'MS', min: 0, max: MAX_LATENCY_MS, helpGroup: 'SANDBOX LOAD' }),
  'latency-reception': Flags.integer({
    description: 'Latency of e-CF reception, ANECF and ACECF, instead of --latency',
    helpValue: 'MS',
    min: 0,
    max: MAX_LATENCY_MS,
    helpGroup: 'SANDBOX LOAD',
  }),
  'latency-rfce': Flags.integer({ description: 'Latency of RFCE reception, instead of --latency', helpValue: 'MS', min: 0, max: MAX_LATENCY_MS, helpGroup: 'SANDBOX LOAD' }),
  'latency-status': Flags.integer({
    description: 'Latency of the queries (result, status, trackIds, directory), instead of --latency',
    helpValue: 'MS',
    min: 0,
    max: MAX_LATENCY_MS,
    helpGroup: 'SANDBOX LOAD',
  }),
  'max-in-flight': Flags.integer({
    description: 'Requests in flight beyond which the sandbox answers 429/503 at once, with Retry-After: 1 (default: no cap)',
    helpValue: 'N',
    min: 1,
    max: MAX_IN_FLIGHT,
    helpGroup: 'SANDBOX LOAD',
  }),
  'overload-status': Flags.string({
    description: 'What a request over --max-in-flight is answered; mixed alternates 429 and 503',
    options: [...OVERLOAD_STATUSES],
    helpGroup: 'SANDBOX LOAD',
  }),
};

export interface SandboxLoadFlagValues {
  readonly latency?: number | undefined;
  readonly jitter?: number | undefined;
  readonly 'latency-auth'?: number | undefined;
  readonly 'latency-reception'?: number | undefined;
  readonly 'latency-rfce'?: number | undefined;
  readonly 'latency-status'?: number | undefined;
  readonly 'max-in-flight'?: number | undefined;
  readonly 'overload-status'?: string | undefined;
}

/**
 * The sandbox's `load` option from the flags' values (undefined when none is
 * given). oclif checks the bounds when it parses; they are checked here again
 * for callers that build the values themselves, with an error naming the flag.
 */
export function sandboxLoadFromFlags(flags: SandboxLoadFlagValues): SandboxLoadInput | undefined {
  const errors: { path: string; code: string; message: string }[] = [];
  const integer = (name: keyof SandboxLoadFlagValues, min: number, max: number): number | undefined => {
    const value = flags[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      errors.push({ path: `--${name}`, code: 'Sandbox.LoadFlag', message: `--${name} must be a whole number from ${min} to ${max}, not ${String(value)}` });
      return undefined;
    }
    return value;
  };
  const latency = integer('latency', 0, MAX_LATENCY_MS);
  const jitter = integer('jitter', 0, MAX_JITTER_MS);
  const perService = Object.fromEntries(SANDBOX_SERVICES.map((s) => [s, integer(`latency-${s}`, 0, MAX_LATENCY_MS)]));
  const maxInFlight = integer('max-in-flight', 1, MAX_IN_FLIGHT);
  const overload = flags['overload-status'];
  if (overload !== undefined && !(OVERLOAD_STATUSES as readonly string[]).includes(overload)) {
    errors.push({ path: '--overload-status', code: 'Sandbox.LoadFlag', message: `--overload-status must be one of ${OVERLOAD_STATUSES.join(', ')}, not ${overload}` });
  }
  if (errors.length) throw new ValidationError(errors, errors.map((e) => e.message).join('; '));

  const load: { -readonly [K in keyof SandboxLoadInput]: SandboxLoadInput[K] } = {};
  const lat: NonNullable<SandboxLoadInput['latency']> & Record<string, unknown> = {};
  if (latency !== undefined || jitter !== undefined) lat.all = { ...(latency !== undefined && { delayMs: latency }), ...(jitter !== undefined && { jitterMs: jitter }) };
  for (const s of SANDBOX_SERVICES) if (perService[s] !== undefined) lat[s] = { delayMs: perService[s] };
  if (Object.keys(lat).length) load.latency = lat;
  if (maxInFlight !== undefined) load.maxInFlight = maxInFlight;
  if (overload !== undefined) load.overloadStatus = overload as OverloadStatus;
  return Object.keys(load).length ? load : undefined;
}

/** One line saying what the flags set, for the start message; empty when nothing is set. */
export function describeSandboxLoad(load: SandboxLoadInput | undefined): string {
  if (!load) return '';
  const parts: string[] = [];
  const l = load.latency;
  if (l?.all) parts.push(`latency ${l.all.delayMs ?? 0} ms + jitter ≤ ${l.all.jitterMs ?? 0} ms`);
  for (const s of SANDBOX_SERVICES) if (l?.[s]) parts.push(`${s} ${l[s]!.delayMs} ms`);
  if (load.maxInFlight) parts.push(`at most ${load.maxInFlight} in flight, then ${load.overloadStatus ?? '503'}`);
  else if (load.overloadStatus) parts.push(`overload answer ${load.overloadStatus} (no cap set)`);
  return parts.join(', ');
}
