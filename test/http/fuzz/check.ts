import { appendFileSync } from 'node:fs';
import type { FuzzWorld } from './world.js';
import { changedTables, snapshotStore, type StoreSnapshot } from './snapshot.js';
import { isReceiver, routeName, type FuzzRequest, type Route } from './routes.js';
import { short } from './mutations.js';

/** FUZZ_API_TRACE=<file> appends each request before it goes, its status after, and each finding as found: the last line names a request that hung the process. */
const TRACE = process.env.FUZZ_API_TRACE;

/** An answer, whichever way the request went (inject or a socket). */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Text that must never come back or be stored: /etc/passwd's first line, and the secret file the hostile documents name. */
export function leaks(world: Pick<FuzzWorld, 'secretFile'>, text: string): string | null {
  if (text.includes(world.secretFile.token)) return 'the secret file';
  if (/root:[x*]?:0:0:/.test(text)) return '/etc/passwd';
  return null;
}

/**
 * What is wrong with an answer: a 5xx; on a 4xx, an /api/v1 body that is not
 * a problem document (application/problem+json with code, status, title,
 * detail and requestId), or a receiver answer that is not plain text (the
 * authority's receivers answer in text, never a problem document); a leaked
 * file anywhere.
 */
export function answerViolations(world: Pick<FuzzWorld, 'secretFile'>, route: Route | null, answer: Answer): string[] {
  const out: string[] = [];
  if (answer.status >= 500) out.push(`${answer.status} answer`);
  if (answer.status >= 400 && answer.status < 500) {
    if (route && isReceiver(route)) {
      if (!answer.contentType.startsWith('text/plain')) out.push(`receiver ${answer.status} not in plain text (${answer.contentType})`);
    } else {
      out.push(...problemViolations(answer));
    }
  }
  const leaked = leaks(world, answer.body);
  if (leaked) out.push(`answer shows ${leaked}`);
  return out;
}

function problemViolations(answer: Answer): string[] {
  if (!answer.contentType.startsWith('application/problem+json')) return [`${answer.status} content type ${answer.contentType || '(none)'}, not application/problem+json`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return [`${answer.status} problem body is not JSON`];
  }
  const out: string[] = [];
  for (const field of ['code', 'title', 'detail', 'requestId'] as const) {
    if (typeof body[field] !== 'string' || body[field] === '') out.push(`${answer.status} problem without ${field}`);
  }
  if (body.status !== answer.status) out.push(`${answer.status} problem with status ${String(body.status)}`);
  return out;
}

/** Settles `work` or rejects once `ms` pass: a request that hangs fails the property instead of the suite. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HangError(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class HangError extends Error {}

/** Found problems, grouped by route and kind, with the first few requests that showed each. */
export class Findings {
  private readonly byKind = new Map<string, string[]>();
  count = 0;

  add(route: Route | string, kind: string, example: string): void {
    const key = `${typeof route === 'string' ? route : routeName(route)}: ${kind}`;
    if (TRACE) appendFileSync(TRACE, `FINDING ${key}: ${short(example, 300)}\n`);
    const list = this.byKind.get(key) ?? [];
    if (list.length < 3) list.push(short(example, 300));
    this.byKind.set(key, list);
    this.count++;
  }

  /** One line per kind, for the assertion message and the long run's log. */
  lines(): string[] {
    return [...this.byKind].map(([kind, examples]) => `${kind}\n    ${examples.join('\n    ')}`);
  }
}

/**
 * Sends each request through `send` and checks the properties: every answer
 * (answerViolations), no hang, and a rejected request (4xx) leaves the store
 * exactly as it was. After an accepted one, `afterAccepted` may undo state
 * that would hide other cases (a pause, bearer mode), then the store is
 * snapshotted again.
 */
export async function runRequests(
  world: FuzzWorld,
  routeOf: Route | ((r: FuzzRequest) => Route),
  requests: readonly FuzzRequest[],
  options: {
    timeoutMs: number;
    findings: Findings;
    send: (r: FuzzRequest) => Promise<Answer>;
    afterAccepted?: (r: FuzzRequest, a: Answer) => Promise<void>;
    /** Problems outside the answer, looked for after each request (e.g. the canary was called). */
    sideEffects?: () => string[];
  },
): Promise<void> {
  let before: StoreSnapshot = await snapshotStore(world.engine);
  for (const request of requests) {
    const route = typeof routeOf === 'function' ? routeOf(request) : routeOf;
    let answer: Answer;
    const started = Date.now();
    if (TRACE) appendFileSync(TRACE, `-> ${request.label}\n`);
    try {
      answer = await within(options.timeoutMs, request.label, options.send(request));
    } catch (e) {
      options.findings.add(route, e instanceof HangError ? 'hang' : `request failed: ${(e as Error).message.split('\n')[0]}`, request.label);
      before = await snapshotStore(world.engine);
      continue;
    }
    if (TRACE) appendFileSync(TRACE, `<- ${answer.status} in ${Date.now() - started} ms\n`);
    for (const v of answerViolations(world, route, answer)) options.findings.add(route, v, `${request.label} -> ${short(answer.body, 200)}`);
    for (const v of options.sideEffects?.() ?? []) options.findings.add(route, v, request.label);
    if (answer.status >= 400) {
      const after = await snapshotStore(world.engine);
      if (after.hash !== before.hash) {
        options.findings.add(route, `rejected (${answer.status}) but stored changed: ${changedTables(before, after).join(', ')}`, request.label);
        before = after;
      }
    } else {
      if (options.afterAccepted) await options.afterAccepted(request, answer);
      before = await snapshotStore(world.engine);
    }
  }
}
