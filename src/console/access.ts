import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveConsoleSession, type ConsolePrincipal } from '../engine/console-sessions/index.js';
import { getSetting } from '../engine/settings/index.js';
import { findTenant, OPERATION_ROLES, tenantScope, type TenantOperation } from '../engine/tenants/index.js';
import { EngineError } from '../engine/errors.js';
import { problemFor } from '../http/problem.js';
import { isLoopback } from '../http/loopback.js';
import { chooseLanguage, type Lang, type MessageKey } from './i18n/index.js';
import { cookies, csrfMatches, fromOwnOrigin, LANG_COOKIE, presentedCsrf, SESSION_COOKIE } from './session.js';

/**
 * What a console route needs, in its `config.consoleAccess`:
 * - a tenant operation of the role table (OPERATION_ROLES): a session whose
 *   key's role may perform it (tenantScope, as the API checks it);
 * - `signed-in`: any session (signing out);
 * - `public`: no session (sign-in, the language switch, the assets).
 * A console route without one refuses to register.
 */
export type ConsoleAccess = TenantOperation | 'signed-in' | 'public';

export type TenantRole = ConsolePrincipal['role'];

export interface ConsoleSession {
  readonly token: string;
  readonly principal: ConsolePrincipal;
  readonly csrf: string;
}

/** What the console knows of a request, set before its route runs. */
export interface ConsoleRequest {
  readonly lang: Lang;
  /** The signed-in session, or null (public routes only). */
  readonly session: ConsoleSession | null;
  /** The session's tenant (name and RNC for the header), or null without a session. */
  readonly tenant: { readonly id: string; readonly name: string; readonly rnc: string } | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    consoleAccess?: ConsoleAccess;
    /** A multipart form route: its body is read in the handler, which checks the CSRF part itself (`requireCsrf`). */
    consoleMultipart?: true;
  }
  interface FastifyRequest {
    consoleRequest: ConsoleRequest;
  }
}

/** Whether a role may perform an operation: what a page shows (links, buttons). The route checks again all the same. */
export const mayPerform = (role: TenantRole, operation: TenantOperation): boolean =>
  (OPERATION_ROLES[operation] as readonly TenantRole[]).includes(role);

/**
 * A refusal the console answers with a page of its own: 401 (no session on a
 * POST), 403 (cross-site, bad CSRF token). The error handler renders it.
 */
export class ConsoleRefusal extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly messageKey: MessageKey,
  ) {
    super(messageKey);
    this.name = 'ConsoleRefusal';
  }
}

export type ConsoleExposure = 'off' | 'loopback' | 'public';

/**
 * The answer to a caller `console.exposure` keeps out: the server's own 404
 * problem, the same as for a path that does not exist, so the console is not
 * revealed (the console's own 404 page would reveal it).
 */
function hiddenNotFound(request: FastifyRequest, reply: FastifyReply) {
  const problem = problemFor(new EngineError('not_found', 'Http.RouteNotFound', `No route ${request.method} ${request.url.split('?')[0]}.`), request.url, request.id);
  return reply.status(problem.status).type('application/problem+json').send(problem.body);
}

/** Whether the `console.exposure` setting lets this caller in (read on each request, as /metrics does). */
async function exposed(app: FastifyInstance, request: FastifyRequest): Promise<boolean> {
  const exposure = await getSetting(app.engine, 'console.exposure');
  return exposure === 'public' || (exposure === 'loopback' && isLoopback(request.ip));
}

/**
 * The console's gate, in order: exposure (404), language, the origin check
 * of every POST (403), the session (GET: to the sign-in page; POST: 401),
 * the route's operation (403, from tenantScope). The CSRF token is checked
 * once the form body is read (preValidation).
 */
export function registerConsoleAccess(app: FastifyInstance): void {
  app.decorateRequest('consoleRequest', null as unknown as ConsoleRequest);
  app.addHook('onRoute', (route) => {
    if (!route.config?.consoleAccess) throw new Error(`Console route ${String(route.method)} ${route.url} does not declare its consoleAccess`);
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const jar = cookies(request);
    const lang = chooseLanguage(jar[LANG_COOKIE], request.headers['accept-language']);
    request.consoleRequest = { lang, session: null, tenant: null };
    if (!(await exposed(app, request))) return hiddenNotFound(request, reply);
    if (request.method === 'POST' && !fromOwnOrigin(request)) throw new ConsoleRefusal(403, 'error.403.origin');

    const access = request.routeOptions.config.consoleAccess ?? 'public';
    const resolved = await resolveConsoleSession(app.engine, jar[SESSION_COOKIE]);
    if (!resolved) {
      if (access === 'public') return;
      if (request.method === 'GET' || request.method === 'HEAD') {
        return reply.redirect(`/console/sign-in?next=${encodeURIComponent(request.url)}`, 303);
      }
      throw new ConsoleRefusal(401, 'error.401');
    }
    const tenant = await findTenant(app.engine, resolved.principal.tenantId);
    request.consoleRequest = {
      lang,
      session: { token: jar[SESSION_COOKIE]!, principal: resolved.principal, csrf: resolved.csrf },
      tenant: { id: tenant.id, name: tenant.tradeName ?? tenant.legalName, rnc: tenant.rnc },
    };
    if (access !== 'public' && access !== 'signed-in') request.tenantId = tenantScope(resolved.principal, access);
  });

  // After the body is read: every POST of a signed-in browser carries its session's token.
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const session = request.consoleRequest?.session;
    if (request.method !== 'POST' || !session) return;
    // Signing in replaces any session, and its form is the one a signed-out browser has.
    if (request.routeOptions.config.consoleAccess === 'public' && request.routeOptions.url === '/console/sign-in') return;
    // A multipart body is not read yet: its route checks the _csrf part before it acts.
    if (request.routeOptions.config.consoleMultipart && request.isMultipart()) return;
    requireCsrf(request, presentedCsrf(request));
  });
}

/** Refuses (403 page) a POST whose presented token is not its session's. */
export function requireCsrf(request: FastifyRequest, presented: string | undefined): void {
  const session = request.consoleRequest.session;
  if (!session || !csrfMatches(presented, session.csrf)) throw new ConsoleRefusal(403, 'error.403.csrf');
}
