import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ECF_STATUSES, ecfStatuses, listEcf, type ListQuery, type PagedEcf } from '../../engine/ecf/index.js';
import { ValidationError, type FieldError } from '../../engine/errors.js';
import { ENVIRONMENTS } from '../../engine/schema-types.js';
import { FINAL_STATES } from '../../engine/submission/index.js';
import { count, date, money } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { t, type Lang, type MessageKey } from '../i18n/index.js';
import { ruleMessage } from '../i18n/rules.js';
import { sendPage } from '../layout.js';

/** The e-CF types, in the order the list's type filter offers them. */
export const ECF_TYPE_CODES = [31, 32, 33, 34, 41, 43, 44, 45, 46, 47] as const;
/** The list's sort choices: the contract's Sort and Order in one control (`Sort.Order`). */
const SORTS = ['issuedAt.desc', 'issuedAt.asc', 'montoTotal.desc', 'montoTotal.asc'] as const;
const PAGE_SIZES = [20, 50, 100, 200] as const;

/** The list form's fields, named as the contract's query parameters (a filtered list is a link). */
const TEXT_FIELDS = ['Type', 'Status', 'Search', 'From', 'To', 'Environment', 'MinAmount', 'MaxAmount', 'Page', 'PageSize'] as const;

/**
 * The engine's list query from the console's GET form: the contract's own
 * parameter names; empty fields are no filter; `Sort=montoTotal.asc` is the
 * contract's Sort and Order; `Retrying=true` a checkbox. Values are passed as
 * they came, so the engine's validation names the field and the rule.
 */
export function listQueryOf(form: Readonly<Record<string, unknown>>): ListQuery {
  const query: Record<string, unknown> = {};
  for (const name of TEXT_FIELDS) {
    const value = form[name];
    if (typeof value === 'string' && value.trim() !== '') query[name] = value.trim();
  }
  const sort = form.Sort;
  if (typeof sort === 'string' && sort !== '') {
    const [by, order] = sort.split('.');
    query.Sort = by;
    if (order !== undefined) query.Order = order;
  }
  if (form.Retrying === 'true') query.Retrying = true;
  return query as ListQuery;
}

/** A status for a person, in the request's language. */
export const statusLabel = (lang: Lang, status: string): string =>
  (ECF_STATUSES as readonly string[]).includes(status) ? t(lang, `status.${status as (typeof ECF_STATUSES)[number]}`) : status;

const typeLabel = (lang: Lang, type: number): string =>
  (ECF_TYPE_CODES as readonly number[]).includes(type) ? t(lang, `ecf.type.${type as (typeof ECF_TYPE_CODES)[number]}`) : String(type);

/** The list's URL with the same filters and another page. */
function withPage(form: Readonly<Record<string, unknown>>, page: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (typeof v === 'string' && v !== '' && k !== 'Page') params.set(k, v);
  params.set('Page', String(page));
  return `/console/ecf?${params.toString()}`;
}

/** A form control's error attributes and message, when the engine named it. */
function fieldError(errors: readonly FieldError[], name: string, lang: Lang) {
  const error = errors.find((e) => e.path === name || e.path.startsWith(`${name}.`) || e.path.startsWith(`${name}[`));
  if (!error) return { attrs: html``, message: html`` };
  const id = `f-${name}-error`;
  return {
    attrs: html` aria-invalid="true" aria-describedby="${id}"`,
    // The rule in the page's language; beside its labelled control, it names the field.
    message: html`<span class="field-error" id="${id}">${ruleMessage(lang, error)}</span>`,
  };
}

function filterForm(lang: Lang, form: Readonly<Record<string, unknown>>, errors: readonly FieldError[]): SafeHtml {
  const value = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  const option = (name: string, v: string, label: string) => html`<option value="${v}"${value(name) === v ? html` selected` : ''}>${label}</option>`;
  const text = (name: string, key: MessageKey, type = 'text', extra = html``, hint?: MessageKey) => {
    const e = fieldError(errors, name, lang);
    const described = [hint ? `f-${name}-hint` : '', e.message.value ? `f-${name}-error` : ''].filter(Boolean).join(' ');
    return html`<div class="field${hint ? ' field-wide' : ''}"><label for="f-${name}">${t(lang, key)}</label><input id="f-${name}" name="${name}" type="${type}" value="${value(name)}"${extra}${described ? html` aria-describedby="${described}"` : ''}${e.message.value ? html` aria-invalid="true"` : ''}>${hint ? html`<span class="hint" id="f-${name}-hint">${t(lang, hint)}</span>` : ''}${e.message}</div>`;
  };
  const select = (name: string, key: MessageKey, options: SafeHtml[], any = true) => {
    const e = fieldError(errors, name, lang);
    return html`<div class="field"><label for="f-${name}">${t(lang, key)}</label><select id="f-${name}" name="${name}"${e.attrs}>${any ? html`<option value="">${t(lang, 'ecf.list.any')}</option>` : ''}${options}</select>${e.message}</div>`;
  };
  return html`<form class="ecf-filters" method="get" action="/console/ecf" role="search" aria-label="${t(lang, 'ecf.list.filters')}">
${text('Search', 'ecf.list.search', 'search', html``, 'ecf.list.searchHint')}
${select('Type', 'ecf.list.type', ECF_TYPE_CODES.map((c) => option('Type', String(c), typeLabel(lang, c))))}
${select('Status', 'ecf.list.status', ECF_STATUSES.map((s) => option('Status', s, statusLabel(lang, s))))}
${select('Environment', 'ecf.list.environment', ENVIRONMENTS.map((e) => option('Environment', e, t(lang, `ecf.env.${e}`))))}
${text('From', 'ecf.list.from', 'date')}
${text('To', 'ecf.list.to', 'date')}
${text('MinAmount', 'ecf.list.minAmount', 'text', html` inputmode="decimal"`)}
${text('MaxAmount', 'ecf.list.maxAmount', 'text', html` inputmode="decimal"`)}
${select('Sort', 'ecf.list.sort', SORTS.map((s) => option('Sort', s, t(lang, `ecf.list.sort.${s}`))), false)}
${select('PageSize', 'ecf.list.pageSize', PAGE_SIZES.map((n) => option('PageSize', String(n), String(n))), false)}
<div class="field field-check"><input id="f-Retrying" name="Retrying" type="checkbox" value="true"${value('Retrying') === 'true' ? html` checked` : ''}><label for="f-Retrying">${t(lang, 'ecf.list.retrying')}</label></div>
<div class="actions"><button type="submit">${t(lang, 'ecf.list.apply')}</button> <a href="/console/ecf">${t(lang, 'ecf.list.clear')}</a></div>
</form>`;
}

/** The status cell: polled (data-field) while it can still change. */
export const statusCell = (lang: Lang, id: string, status: string): SafeHtml =>
  html`<span class="status status-${status}" data-field="s-${id}">${statusLabel(lang, status)}</span>`;

/** The polling URL for the e-CF on a page that can still change status, or null when none can. */
export function pollUrl(items: readonly { id: string; status: string }[]): string | null {
  const open = items.filter((e) => !FINAL_STATES.has(e.status)).map((e) => e.id);
  return open.length ? `/console/ecf/statuses?ids=${open.join(',')}` : null;
}

function results(lang: Lang, form: Readonly<Record<string, unknown>>, page: PagedEcf): SafeHtml {
  if (page.items.length === 0) return html`<p>${t(lang, 'ecf.list.empty')}</p>`;
  const first = (page.page - 1) * page.pageSize + 1;
  const poll = pollUrl(page.items);
  return html`<div class="table-wrap"${poll ? html` data-poll="${poll}"` : ''}>
<table class="ecf-list">
<caption>${t(lang, 'ecf.list.caption', { from: count(lang, first), to: count(lang, first + page.items.length - 1), total: count(lang, page.totalCount) })}</caption>
<thead><tr><th scope="col">${t(lang, 'ecf.list.encf')}</th><th scope="col">${t(lang, 'ecf.list.date')}</th><th scope="col">${t(lang, 'ecf.list.type')}</th><th scope="col">${t(lang, 'ecf.list.buyer')}</th><th scope="col" class="number">${t(lang, 'ecf.list.total')}</th><th scope="col">${t(lang, 'ecf.list.status')}</th></tr></thead>
<tbody>${page.items.map(
    (e) => html`<tr><th scope="row"><a href="/console/ecf/${e.id}">${e.encf}</a></th><td>${date(lang, `${e.issueDate}T12:00:00-04:00`)}</td><td>${typeLabel(lang, e.type)}</td><td>${e.buyerName ?? ''}${e.buyerRnc ? html` <span class="rnc">${e.buyerRnc}</span>` : ''}</td><td class="number">${money(lang, String(e.montoTotal))}</td><td>${statusCell(lang, e.id, e.status)}</td></tr>`,
  )}</tbody>
</table>
</div>
${page.totalPages > 1 ? html`<nav class="pager" aria-label="${t(lang, 'ecf.list.pages')}"><p>${t(lang, 'ecf.list.pageOf', { page: count(lang, page.page), pages: count(lang, page.totalPages) })}</p>
${page.hasPreviousPage ? html`<a rel="prev" href="${withPage(form, page.page - 1)}">${t(lang, 'ecf.list.previous')}</a>` : ''}
${page.hasNextPage ? html`<a rel="next" href="${withPage(form, page.page + 1)}">${t(lang, 'ecf.list.next')}</a>` : ''}</nav>` : ''}`;
}

/**
 * GET /console/ecf: the tenant's e-CF, filtered, searched, sorted and paged
 * by the engine's listEcf (a GET form: a filtered list is a link); GET
 * /console/ecf/statuses?ids=a,b: the statuses the open page polls.
 */
export default async function ecfListRoutes(app: FastifyInstance) {
  app.get('/ecf', { config: { consoleAccess: 'ecf.list' } }, async (request, reply) => {
    const { lang } = request.consoleRequest;
    const form = request.query as Record<string, unknown>;
    let page: PagedEcf | null = null;
    let errors: readonly FieldError[] = [];
    try {
      page = await listEcf(app.engine, request.tenantId, listQueryOf(form));
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      errors = e.errors.map((f) => ({ ...f, path: f.path === 'Order' ? 'Sort' : f.path }));
    }
    return sendPage(request, reply, {
      title: t(lang, 'ecf.list.title'),
      status: page ? 200 : 400,
      main: html`${filterForm(lang, form, errors)}
${errors.length ? html`<p class="error-summary" role="alert">${t(lang, 'ecf.list.invalid')}</p>` : ''}
${page ? results(lang, form, page) : ''}`,
    });
  });

  app.get('/ecf/statuses', { config: { consoleAccess: 'ecf.list' } }, async (request: FastifyRequest, reply) => {
    const { lang } = request.consoleRequest;
    const raw = (request.query as Record<string, unknown>).ids;
    const ids = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter(Boolean) : [];
    let rows;
    try {
      rows = await ecfStatuses(app.engine, request.tenantId, ids);
    } catch (e) {
      // A script asked: the field and the rule as JSON (an unknown or foreign id stays the 404 page).
      if (e instanceof ValidationError) return reply.status(400).header('cache-control', 'no-store').send({ errors: e.errors });
      throw e;
    }
    const answer: Record<string, unknown> = { statuses: Object.fromEntries(rows.map((r) => [r.id, r.status])) };
    for (const r of rows) answer[`s-${r.id}`] = statusLabel(lang, r.status);
    answer.done = rows.every((r) => FINAL_STATES.has(r.status));
    return reply.header('cache-control', 'no-store').send(answer);
  });
}
