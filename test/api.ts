import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * The one way tests call the HTTP app in process: `api(app, keys).as('emisor').post(url, body)`.
 * It lives beside helpers.ts and cli-runner.ts (the suite's shared kit, not a mirror of a src file),
 * as HTTP routes are exercised from tests of several areas, not only test/http.
 *
 * Each call is exactly the `app.inject({ method, url, headers, payload })` it replaces: the key goes
 * in `x-api-key`, the body is passed as is (an object is sent as JSON, a string or Buffer raw);
 * `remoteAddress` and extra headers go through `options`.
 */
type Injectable = { inject(options: InjectOptions): Promise<LightMyRequestResponse> };
type Options = { headers?: Record<string, string | string[] | undefined>; remoteAddress?: string };
type Body = InjectOptions['payload'];

export interface Caller {
  get(url: string, options?: Options): Promise<LightMyRequestResponse>;
  delete(url: string, options?: Options): Promise<LightMyRequestResponse>;
  post(url: string, body?: Body, options?: Options): Promise<LightMyRequestResponse>;
  put(url: string, body?: Body, options?: Options): Promise<LightMyRequestResponse>;
  patch(url: string, body?: Body, options?: Options): Promise<LightMyRequestResponse>;
  /** For a method chosen at run time (route tables): a body given to GET or DELETE is sent too. */
  send(method: string, url: string, body?: Body, options?: Options): Promise<LightMyRequestResponse>;
}

export interface Api extends Caller {
  /** The calls of the key seeded for `role` (seedTenant's and seedIssuer's `keys`). */
  as(role: string): Caller;
  /** The calls of any key, or of none when `key` is undefined. */
  key(key: string | undefined): Caller;
}

function caller(app: Injectable, key: string | undefined): Caller {
  const send = (method: string, url: string, body: Body | undefined, { headers: extra, ...rest }: Options = {}) => {
    const headers = key === undefined ? extra : { 'x-api-key': key, ...extra };
    return app.inject({ method: method as InjectOptions['method'] & string, url, ...rest, ...(headers && { headers }), ...(body !== undefined && { payload: body }) });
  };
  return {
    get: (url, options) => send('GET', url, undefined, options),
    delete: (url, options) => send('DELETE', url, undefined, options),
    post: (url, body, options) => send('POST', url, body, options),
    put: (url, body, options) => send('PUT', url, body, options),
    patch: (url, body, options) => send('PATCH', url, body, options),
    send,
  };
}

export function api(app: Injectable, keys: Partial<Record<string, string>> = {}): Api {
  return {
    ...caller(app, undefined),
    as(role) {
      const key = keys[role];
      if (key === undefined) throw new Error(`api(): no key for role ${role}; pass the seeded keys as api(app, keys)`);
      return caller(app, key);
    },
    key: (key) => caller(app, key),
  };
}

