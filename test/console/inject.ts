import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** The console's forms over fastify inject, as a browser posts them. */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Signs in with `key` over inject: the cookie to send, the session's CSRF token, and the Set-Cookie line. */
export async function signIn(app: Pick<FastifyInstance, 'inject'>, key: string) {
  const res = await app.inject({ method: 'POST', url: '/console/sign-in', headers: FORM, payload: form({ apiKey: key }) });
  expect(res.statusCode).toBe(303);
  const raw = res.headers['set-cookie'];
  const line = (Array.isArray(raw) ? raw : [raw!]).find((l) => l.startsWith('ecf_console='))!;
  const cookie = line.split(';')[0]!;
  const page = await app.inject({ method: 'GET', url: '/console/', headers: { cookie } });
  expect(page.statusCode).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  return { cookie, csrf, line, page };
}
