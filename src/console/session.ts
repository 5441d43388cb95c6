import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie holding the session's random token (never anything else). */
export const SESSION_COOKIE = 'ecf_console';
/** The language the header's switch chose. */
export const LANG_COOKIE = 'ecf_lang';
/** A message key shown once on the page a POST redirects to. */
export const FLASH_COOKIE = 'ecf_flash';

/** The request's cookies by name (the first of a repeated name; malformed escapes kept as sent). */
export function cookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || Object.hasOwn(out, name)) continue;
    const value = part.slice(eq + 1).trim();
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

/** Secure only under TLS: a browser drops a Secure cookie sent over plain HTTP, and loopback HTTP is the default. */
const isTls = (request: FastifyRequest) => request.protocol === 'https';

/**
 * A Set-Cookie for the console: HttpOnly (no script reads it), SameSite=Strict
 * (no other site's page sends it), Path=/console (the API never sees it).
 * `maxAge` in seconds; 0 removes the cookie.
 */
export function addCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAge: number): void {
  const attributes = [`${name}=${encodeURIComponent(value)}`, 'Path=/console', `Max-Age=${Math.max(0, Math.floor(maxAge))}`, 'HttpOnly', 'SameSite=Strict'];
  if (isTls(request)) attributes.push('Secure');
  const before = reply.getHeader('set-cookie');
  const list = before === undefined ? [] : Array.isArray(before) ? before : [String(before)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

/** The session cookie, living until the session's absolute expiry. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: Date, now: Date): void {
  addCookie(request, reply, SESSION_COOKIE, token, (expiresAt.getTime() - now.getTime()) / 1000);
}

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply): void => addCookie(request, reply, SESSION_COOKIE, '', 0);

/**
 * Whether a POST comes from this server's own pages. Refused: a browser's
 * `Sec-Fetch-Site` of cross-site or same-site (a sibling subdomain is another
 * site for us), or an `Origin` that is not this server's own (or `null`).
 * Clients that send neither (curl, old browsers) pass here; the CSRF token
 * still stands in their way.
 */
export function fromOwnOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin.toLowerCase() === `${request.protocol}://${request.headers.host ?? ''}`.toLowerCase();
}

/** The CSRF token a POST carries: the form's `_csrf` field, or the `x-csrf-token` header (console.js). */
export function presentedCsrf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body = request.body as Record<string, unknown> | null | undefined;
  const field = body && typeof body === 'object' ? body._csrf : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** Compares in constant time, so the answer's timing tells nothing of the token. */
export function csrfMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Where to go after signing in (or changing language): only a path of this
 * console (`/console…`), never another host (`//evil`, `/\evil`, `https:…`),
 * else the overview.
 */
export function localNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000) return '/console/';
  if (!/^\/console(?:[/?#]|$)/.test(next) || /[\\\s\u0000-\u001f]/.test(next) || next.includes('//')) return '/console/';
  return next;
}
