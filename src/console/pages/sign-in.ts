import type { FastifyInstance } from 'fastify';
import { closeConsoleSession, openConsoleSession } from '../../engine/console-sessions/index.js';
import { EngineError } from '../../engine/errors.js';
import { html } from '../html.js';
import { t, type MessageKey } from '../i18n/index.js';
import { flash, sendPage } from '../layout.js';
import { clearSessionCookie, localNext, setSessionCookie } from '../session.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

function signInPage(request: FastifyRequest, reply: FastifyReply, next: string, error?: { key: MessageKey; status: number }) {
  const { lang } = request.consoleRequest;
  const describedBy = error ? 'api-key-hint api-key-error' : 'api-key-hint';
  return sendPage(request, reply, {
    title: t(lang, 'signIn.title'),
    status: error?.status ?? 200,
    main: html`<p>${t(lang, 'signIn.intro')}</p>
<form method="post" action="/console/sign-in" class="sign-in">
<input type="hidden" name="next" value="${next}">
<div class="field">
<label for="api-key">${t(lang, 'signIn.key')}</label>
<p class="hint" id="api-key-hint">${t(lang, 'signIn.keyHint')}</p>
${error ? html`<p class="error" id="api-key-error">${t(lang, error.key)}</p>` : ''}
<input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck="false" required aria-describedby="${describedBy}"${error ? html` aria-invalid="true" autofocus` : ''}>
</div>
<button type="submit">${t(lang, 'signIn.submit')}</button>
</form>`,
  });
}

/** Why a key was refused, for the message beside the field. */
function refusal(error: unknown): { key: MessageKey; status: number } | null {
  if (!(error instanceof EngineError)) return null;
  if (error.code === 'Console.OrganizationKey') return { key: 'signIn.organization', status: 403 };
  if (error.code === 'Auth.MissingKey') return { key: 'signIn.missing', status: 400 };
  if (error.kind === 'unauthenticated') return { key: 'signIn.invalid', status: 401 };
  return null;
}

export default async function signInRoutes(app: FastifyInstance) {
  app.get<{ Querystring: { next?: string } }>('/sign-in', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const next = localNext(request.query.next);
    if (request.consoleRequest.session) return reply.redirect(next, 303);
    return signInPage(request, reply, next);
  });

  app.post<{ Body: { apiKey?: unknown; next?: unknown } }>('/sign-in', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const body = request.body ?? {};
    const next = localNext(body.next);
    const key = typeof body.apiKey === 'string' ? body.apiKey : undefined;
    try {
      // A browser signing in again leaves its old session behind: end it.
      if (request.consoleRequest.session) await closeConsoleSession(app.engine, request.consoleRequest.session.token);
      const opened = await openConsoleSession(app.engine, key);
      setSessionCookie(request, reply, opened.token, opened.expiresAt, app.engine.clock.now());
      flash(request, reply, 'flash.signedIn');
      return reply.redirect(next, 303);
    } catch (error) {
      const why = refusal(error);
      if (!why) throw error;
      return signInPage(request, reply, next, why);
    }
  });

  app.post('/sign-out', { config: { consoleAccess: 'signed-in' } }, async (request, reply) => {
    await closeConsoleSession(app.engine, request.consoleRequest.session?.token);
    clearSessionCookie(request, reply);
    flash(request, reply, 'flash.signedOut');
    return reply.redirect('/console/sign-in', 303);
  });

}
