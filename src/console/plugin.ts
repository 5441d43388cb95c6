import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EngineError } from '../engine/errors.js';
import { ConsoleRefusal, registerConsoleAccess } from './access.js';
import { registerAssets } from './assets.js';
import { html } from './html.js';
import { chooseLanguage, t, type MessageKey } from './i18n/index.js';
import { engineMessage } from './i18n/rules.js';
import { sendPage } from './layout.js';
import { cookies, LANG_COOKIE } from './session.js';
import languageRoutes from './pages/language.js';
import certificatesRoutes from './pages/certificates.js';
import certificationRoutes from './pages/certification.js';
import overviewRoutes from './pages/overview.js';
import ecfListRoutes from './pages/ecf-list.js';
import ecfDetailRoutes from './pages/ecf-detail.js';
import sequencesRoutes from './pages/sequences.js';
import webhooksRoutes from './pages/webhooks.js';
import signInRoutes from './pages/sign-in.js';
import issueRoutes from './pages/issue.js';
import receivedRoutes from './pages/received.js';

/** A form is at most this big (the console's forms are a few fields; uploads are multipart). */
const FORM_LIMIT = 64 * 1024;

/**
 * What the browser may do with a console page: only this server's own
 * stylesheet, script and form targets; never framed (clickjacking).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const ENGINE_STATUS: Partial<Record<EngineError['kind'], number>> = { validation: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, too_large: 413 };

/** `detail`: an engine refusal (said in the page's language by its code) or another error's own words. */
function errorPage(request: FastifyRequest, reply: FastifyReply, status: number, key: MessageKey, detail?: string | EngineError) {
  // A request refused before the gate ran (or by it) still gets a page in its language.
  request.consoleRequest ??= { lang: chooseLanguage(cookies(request)[LANG_COOKIE], request.headers['accept-language']), session: null, tenant: null };
  const { lang, session } = request.consoleRequest;
  const action =
    status === 401
      ? html`<p><a href="/console/sign-in">${t(lang, 'error.401.action')}</a></p>`
      : html`<p><a href="${session ? '/console/' : '/console/sign-in'}">${t(lang, 'error.back')}</a></p>`;
  return sendPage(request, reply, {
    title: `${t(lang, 'error.title')} ${status}`,
    status,
    main: html`<p>${t(lang, key)}</p>${detail ? html`<p class="hint">${typeof detail === 'string' ? detail : engineMessage(lang, detail)}</p>` : ''}${action}`,
  });
}

const keyFor = (status: number): MessageKey =>
  status === 401 ? 'error.401' : status === 403 ? 'error.403' : status === 404 ? 'error.404' : status >= 500 ? 'error.500' : 'error.400';

/**
 * The web console under /console (registered by src/http/app.ts with that
 * prefix), in its own encapsulated context: its errors and unknown paths are
 * HTML pages, while /api/v1 keeps its problem details. docs/console.md says
 * how a page is written.
 */
export default async function consolePlugin(app: FastifyInstance) {
  // Forms post urlencoded; read here only (the API accepts JSON and multipart).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    // A route may set a policy of its own (the e-CF PDF, which the detail page frames).
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    return payload;
  });

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (error instanceof ConsoleRefusal) return errorPage(request, reply, error.status, error.messageKey);
    if (error instanceof EngineError) {
      const status = ENGINE_STATUS[error.kind] ?? 500;
      if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'console: unexpected error');
      // The page's language is known only inside errorPage; the message is chosen there by the code.
      return errorPage(request, reply, status, keyFor(status), status < 500 ? error : undefined);
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'console: unexpected error');
    return errorPage(request, reply, status, keyFor(status), status < 500 ? error.message : undefined);
  });
  app.setNotFoundHandler((request, reply) => errorPage(request, reply, 404, 'error.404'));

  registerConsoleAccess(app);
  registerAssets(app);
  await app.register(signInRoutes);
  await app.register(languageRoutes);
  await app.register(overviewRoutes);
  await app.register(ecfListRoutes);
  await app.register(ecfDetailRoutes);
  await app.register(issueRoutes);
  await app.register(receivedRoutes);
  await app.register(sequencesRoutes);
  await app.register(certificatesRoutes);
  await app.register(webhooksRoutes);
  await app.register(certificationRoutes);
}
