import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The first step of a stop, before the listener closes: what the app does differently while it drains. */
export interface Draining {
  /** True once the stop began: readiness fails and every answer ends its connection. */
  readonly active: boolean;
  /** Begins the drain (once; later calls do nothing). */
  begin(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly draining: Draining;
  }
}

/**
 * A stop that closed the listener and the idle keep-alive connections at once
 * reset the requests a client (or nginx) had just written on them. So a stop
 * first drains: `/readyz` fails, so a balancer takes the node out, while every
 * request keeps being served as usual, its answer carrying `Connection: close`
 * (the answers already being written included) so each client opens its next
 * connection elsewhere. Only then does the caller close the server.
 * Set on the raw response rather than in a hook: it covers every way of
 * answering (problems, 404s, fastify's own errors) and requests already past
 * their hooks when the drain begins. The keep-alive connections that stay
 * idle all along are closed by the server's close, after the drain.
 */
export function registerDraining(app: FastifyInstance): void {
  let active = false;
  const open = new Set<ServerResponse>();
  const endConnection = (res: ServerResponse) => {
    if (!res.headersSent) res.shouldKeepAlive = false;
  };
  // Ahead of fastify's own listener, so it sees each request before anything is answered.
  app.server.prependListener('request', (_req, res: ServerResponse) => {
    if (active) return endConnection(res);
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  app.decorate('draining', {
    get active() {
      return active;
    },
    begin() {
      if (active) return;
      active = true;
      for (const res of open) endConnection(res);
      open.clear();
    },
  } satisfies Draining);
}
