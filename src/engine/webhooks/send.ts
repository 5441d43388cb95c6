import { undici } from '../net/undici.js';
import { AddressRefused, checkTarget, type CheckedTarget, type Resolver } from './address-guard.js';
import type { Cidr } from '../net/addresses.js';
import { DELIVERY_TIMEOUT_MS } from './rules.js';

/** What one POST to a receiver came to; the shape of the contract's ping result. */
export interface SendResult {
  readonly delivered: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
}

/** The operator's rules in force for a delivery, read from the settings before sending. */
export interface SendPolicy {
  readonly allowedCidrs: readonly Cidr[];
  readonly developmentMode: boolean;
  readonly resolve?: Resolver | undefined;
  /** Name resolution, connection, request and answer together; 10 s unless a test says otherwise. */
  readonly timeoutMs?: number | undefined;
}

const USER_AGENT = 'ecf-appliance-webhooks/1';

/** The scheme rule of the contract: HTTPS, or plain HTTP when the operator turned on development mode. */
export function schemeProblem(url: URL, developmentMode: boolean): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return developmentMode ? null : 'must use https (plain http only when the operator turns on webhooks.development_mode)';
  return 'must be an http(s) URL';
}

class Timeout extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), Math.max(ms, 0));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

function describeFailure(error: unknown, target: CheckedTarget, timeoutMs: number): string {
  const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (error instanceof Timeout || e.name === 'AbortError' || /TIMEOUT/.test(code ?? '')) return `no answer within ${seconds(timeoutMs)}`;
  if (/CERT|SSL|TLS|UNABLE_TO_VERIFY|SELF_SIGNED/.test(code ?? '')) return `TLS with ${target.url.host} failed: ${code}`;
  return `could not reach ${target.address}: ${code ?? e.message ?? String(error)}`;
}

/**
 * POSTs a body to a receiver once: checks the scheme, resolves and checks the
 * host (the SSRF guard), then connects to that checked address only, sending
 * the URL's own host in the Host header and as the TLS server name. Redirects
 * are answers like any other non-2xx: never followed. Never throws.
 */
export async function postToReceiver(
  urlText: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  policy: SendPolicy,
): Promise<SendResult> {
  const timeoutMs = policy.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { delivered: false, statusCode: null, error: 'the URL is not an absolute URL' };
  }
  const scheme = schemeProblem(url, policy.developmentMode);
  if (scheme) return { delivered: false, statusCode: null, error: `the URL ${scheme}` };

  let target: CheckedTarget;
  try {
    target = await withDeadline(checkTarget(url, policy.allowedCidrs, policy.resolve), deadline - Date.now());
  } catch (e) {
    if (e instanceof AddressRefused) return { delivered: false, statusCode: null, error: e.message };
    if (e instanceof Timeout) return { delivered: false, statusCode: null, error: `the host did not resolve within ${seconds(timeoutMs)}` };
    throw e;
  }

  const remaining = Math.max(deadline - Date.now(), 1);
  const { Client, buildConnector } = undici();
  const connect = buildConnector({ timeout: remaining });
  const client = new Client(url.origin, {
    // The checked address replaces the name; the name stays the Host header and the TLS server name.
    connect: (options, callback) => connect({ ...options, hostname: target.address }, callback),
    headersTimeout: remaining,
    bodyTimeout: remaining,
    keepAliveTimeout: 1000,
  });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Timeout()), remaining);
  try {
    const response = await client.request({
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
      body,
      signal: abort.signal,
    });
    // The answer's body is not kept; reading a little of it lets the connection end cleanly.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const statusCode = response.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, statusCode, error: null };
    const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
    return { delivered: false, statusCode, error: `the receiver answered HTTP ${statusCode}${redirect}` };
  } catch (e) {
    return { delivered: false, statusCode: null, error: describeFailure(e, target, timeoutMs) };
  } finally {
    clearTimeout(timer);
    await client.destroy().catch(() => undefined);
  }
}
