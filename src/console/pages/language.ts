import type { FastifyInstance } from 'fastify';
import { isLang } from '../i18n/index.js';
import { flash } from '../layout.js';
import { addCookie, LANG_COOKIE, localNext } from '../session.js';

const YEAR_S = 365 * 24 * 60 * 60;

/** POST /console/language: the header's switch. The choice is a cookie for a year; back to the page it came from. */
export default async function languageRoutes(app: FastifyInstance) {
  app.post<{ Body: { lang?: unknown; next?: unknown } }>('/language', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const lang = request.body?.lang;
    if (isLang(lang)) {
      addCookie(request, reply, LANG_COOKIE, lang, YEAR_S);
      flash(request, reply, 'flash.language');
    }
    return reply.redirect(localNext(request.body?.next), 303);
  });
}
