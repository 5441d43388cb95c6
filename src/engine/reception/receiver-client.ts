import { undici } from '../net/undici.js';
import { signingCredentials } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import { signingKey } from '../signing/xmldsig.js';
import { multipartBody } from '../taxauth/upload.js';
import { collapseErrorBody, isTransient, type TaxauthErrorKind } from '../taxauth/errors.js';
import { signSeed } from '../taxauth/token-cache.js';
import { RECEIVER_TIMEOUT_MS } from './rules.js';

/**
 * HTTP to another taxpayer's receiver (NOTES §10.5): its optional
 * authentication (seed, signature, token) and the ACECF upload. A failure is
 * a ReceiverError shaped as the authority's are (kind, status, transient), so
 * the conversation's eventOfError reads both the same way: one place tells a
 * definite refusal (a 4xx other than 401, 408, 429) from a "try later".
 */
export class ReceiverError extends Error {
  readonly kind: TaxauthErrorKind;
  readonly status: number | null;
  readonly transient: boolean;

  constructor(kind: TaxauthErrorKind, message: string, status: number | null = null, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ReceiverError';
    this.kind = kind;
    this.status = status;
    this.transient = isTransient(kind, status);
  }
}

/** Seed, signature, token at another taxpayer's optional authentication service (NOTES §10.5 step 3). */
export async function receiverToken(engine: Engine, tenantId: string, base: string): Promise<string> {
  const root = base.replace(/\/+$/, '');
  const seed = await call(`${root}/fe/autenticacion/api/semilla`, { method: 'GET', headers: { accept: 'application/xml' } });
  const credentials = await signingCredentials(engine, tenantId);
  const signed = signSeed(seed.body, signingKey(credentials.privateKey, credentials.certificate));
  const form = multipartBody('xml', 'semilla.xml', 'text/xml', Buffer.from(signed, 'utf8'));
  const answer = await call(`${root}/fe/autenticacion/api/validacioncertificado`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': form.contentType, 'content-length': String(form.body.length) },
    body: form.body,
  });
  let token: unknown;
  try {
    token = (JSON.parse(answer.body) as { token?: unknown }).token;
  } catch {
    token = /<token>([^<]+)<\/token>/i.exec(answer.body)?.[1];
  }
  if (typeof token !== 'string' || !token) throw new ReceiverError('protocol', "the receiver's validacioncertificado answered without a token");
  return token;
}

/** The ACECF as a multipart upload, with the receiver's token when it asked for one. */
export async function postToReceiver(url: string, fileName: string, xml: Buffer, bearer: string | null): Promise<void> {
  const form = multipartBody('xml', fileName, 'text/xml', xml);
  const headers: Record<string, string> = { 'content-type': form.contentType, 'content-length': String(form.body.length) };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  await call(url, { method: 'POST', headers, body: form.body });
}

/** One request with a whole-call timeout; anything but a 2xx is a ReceiverError. */
async function call(url: string, options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer }): Promise<{ body: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), RECEIVER_TIMEOUT_MS);
  try {
    const response = await undici().request(url, { ...options, signal: controller.signal, headers: { 'user-agent': 'ecf-appliance', ...options.headers } });
    const body = await response.body.text();
    if (response.statusCode >= 200 && response.statusCode < 300) return { body };
    const said = collapseErrorBody(body, String(response.headers['content-type'] ?? '')) || `HTTP ${response.statusCode}`;
    throw new ReceiverError('http', `${new URL(url).pathname}: HTTP ${response.statusCode}: ${said}`, response.statusCode);
  } catch (e) {
    if (controller.signal.aborted) throw new ReceiverError('timeout', `no answer from ${new URL(url).host} within ${RECEIVER_TIMEOUT_MS} ms`, null, e);
    if (e instanceof ReceiverError) throw e;
    // Refused, reset or closed connections, DNS, TLS: the message keeps the error's own code, as operators grep for it.
    throw new ReceiverError('network', describeError(e), null, e);
  } finally {
    clearTimeout(timer);
  }
}

/** An error as one line, with its code when it has one (`ECONNREFUSED: connect ECONNREFUSED …`). */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${e.message}`;
}
