import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantOperation } from '../engine/tenants/index.js';
import { mayPerform } from './access.js';
import { assetUrls } from './assets.js';
import { html, type SafeHtml } from './html.js';
import { isMessageKey, LANGUAGES, LOCALES, t, type MessageKey } from './i18n/index.js';
import { addCookie, cookies, FLASH_COOKIE } from './session.js';

/**
 * The navigation: each entry names the tenant operation its page performs
 * (the role table decides who sees it). The pages themselves are other
 * files; an entry links to its route whether or not it exists yet.
 */
export const NAVIGATION: readonly { readonly key: MessageKey; readonly href: string; readonly operation: TenantOperation }[] = [
  { key: 'nav.home', href: '/console/', operation: 'ecf.list' },
  { key: 'nav.ecf', href: '/console/ecf', operation: 'ecf.list' },
  { key: 'nav.issue', href: '/console/issue', operation: 'ecf.issue' },
  { key: 'nav.received', href: '/console/received', operation: 'receivedEcf.list' },
  { key: 'nav.sequences', href: '/console/sequences', operation: 'sequences.list' },
  { key: 'nav.certificates', href: '/console/certificates', operation: 'certificates.list' },
  { key: 'nav.webhooks', href: '/console/webhooks', operation: 'webhooks.list' },
  // Certification talks to the authority for the tenant: the administrator's, as the connection is.
  { key: 'nav.certification', href: '/console/certification', operation: 'taxauth.connection' },
];

export interface PageOptions {
  readonly title: string;
  readonly main: SafeHtml;
  readonly status?: number;
}

/** Shows a message on the next page this browser loads (after a POST's redirect). */
export const flash = (request: FastifyRequest, reply: FastifyReply, key: MessageKey): void => addCookie(request, reply, FLASH_COOKIE, key, 60);

/** The hidden CSRF field every form of a signed-in page carries. */
export function csrfField(request: FastifyRequest): SafeHtml {
  const session = request.consoleRequest.session;
  return session ? html`<input type="hidden" name="_csrf" value="${session.csrf}">` : html``;
}

function currentPath(request: FastifyRequest): string {
  return request.url.split('#')[0]!;
}

/**
 * Sends a whole page in the shell: language, title, skip link, the header
 * (tenant, role, navigation by role, language switch, sign-out), the flash
 * message and the page's main content. Every console page ends here.
 */
export function sendPage(request: FastifyRequest, reply: FastifyReply, options: PageOptions): FastifyReply {
  const { lang, session, tenant } = request.consoleRequest;
  const assets = assetUrls();
  const jar = cookies(request);
  const flashKey = jar[FLASH_COOKIE];
  if (flashKey !== undefined) addCookie(request, reply, FLASH_COOKIE, '', 0);
  const path = currentPath(request).split('?')[0];
  const role = session?.principal.role;
  const nav = role
    ? NAVIGATION.filter((item) => mayPerform(role, item.operation)).map(
        (item) => html`<li><a href="${item.href}"${item.href === path || (item.href !== '/console/' && path?.startsWith(`${item.href}/`)) ? html` aria-current="page"` : ''}>${t(lang, item.key)}</a></li>`,
      )
    : [];
  const page = html`<!doctype html>
<html lang="${LOCALES[lang]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${session ? html`<meta name="csrf-token" content="${session.csrf}">` : ''}
<title>${options.title} · ${t(lang, 'app.name')}</title>
${assets ? html`<link rel="stylesheet" href="${assets.css}"><script src="${assets.js}" defer></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">${t(lang, 'shell.skip')}</a>
<header class="shell-header">
<div class="shell-top">
<a class="brand" href="/console/">${t(lang, 'app.name')}</a>
${tenant && role ? html`<p class="tenant"><strong>${tenant.name}</strong> <span>${t(lang, 'shell.rnc', { rnc: tenant.rnc })}</span> <span class="role">${t(lang, 'shell.role', { role: t(lang, `role.${role}`) })}</span></p>` : ''}
<div class="shell-actions">
<form class="language" method="post" action="/console/language">
${csrfField(request)}<input type="hidden" name="next" value="${currentPath(request)}">
<label for="language-choice">${t(lang, 'shell.language')}</label>
<select id="language-choice" name="lang">${LANGUAGES.map((l) => html`<option value="${l}" lang="${LOCALES[l]}"${l === lang ? html` selected` : ''}>${t(l, `lang.${l}`)}</option>`)}</select>
<button type="submit">${t(lang, 'shell.languageApply')}</button>
</form>
${session ? html`<form class="sign-out" method="post" action="/console/sign-out">${csrfField(request)}<button type="submit">${t(lang, 'shell.signOut')}</button></form>` : ''}
</div>
</div>
${nav.length ? html`<nav aria-label="${t(lang, 'shell.nav')}"><ul>${nav}</ul></nav>` : ''}
</header>
${assets ? '' : html`<p class="notice" role="alert">${t(lang, 'shell.assetsMissing')}</p>`}
<main id="main" tabindex="-1">
${isMessageKey(flashKey) && flashKey.startsWith('flash.') ? html`<p class="flash" role="status">${t(lang, flashKey)}</p>` : ''}
<h1>${options.title}</h1>
${options.main}
</main>
</body>
</html>
`;
  return reply
    .status(options.status ?? 200)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page.value);
}
