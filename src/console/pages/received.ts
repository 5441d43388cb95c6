import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APPROVAL_STATES, getReceivedEcf, listReceivedEcf, type PagedReceivedEcf, type ReceivedEcfView } from '../../engine/reception/index.js';
import { decideCommercialApproval, receivedEcfContent } from '../../engine/reception/receiving.js';
import { ValidationError, type FieldError } from '../../engine/errors.js';
import { mayPerform } from '../access.js';
import { count, date, dateTime, money } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { isMessageKey, t, type Lang, type MessageKey } from '../i18n/index.js';
import { ruleMessage } from '../i18n/rules.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { fieldId } from './issue-form.js';

/** The inbox's filters: the form's names, as the engine's list takes them (any casing). */
const FILTERS = ['status', 'approval', 'issuerRnc', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number] | 'page', string>>;
const PAGE_SIZE = 20;

const amount = (lang: Lang, value: string | null): string => (value && /^-?\d+(\.\d+)?$/.test(value) ? money(lang, value) : '—');
const label = (lang: Lang, key: string): string => (isMessageKey(key) ? t(lang, key) : key);

/** Errors by field name (the engine's last path segment, lower camel case), the rest at the top. */
function byField(lang: Lang, errors: readonly FieldError[], names: readonly string[]): { fields: Record<string, string>; top: string[] } {
  const fields: Record<string, string> = {};
  const top: string[] = [];
  for (const e of errors) {
    const last = e.path.split('.').pop() ?? '';
    const name = names.find((n) => n.toLowerCase() === last.toLowerCase());
    const text = ruleMessage(lang, e);
    if (name) fields[name] = fields[name] ? `${fields[name]} ${text}` : text;
    else top.push(`${e.path}: ${text}`);
  }
  return { fields, top };
}

function described(errors: Record<string, string>, name: string): { attrs: SafeHtml; note: SafeHtml } {
  const text = errors[name];
  const id = `${fieldId(name)}-error`;
  return text ? { attrs: html` aria-invalid="true" aria-describedby="${id}"`, note: html`<p class="field-error" id="${id}">${text}</p>` } : { attrs: html``, note: html`` };
}

function filterForm(lang: Lang, filters: Filters, errors: Record<string, string>): SafeHtml {
  const choice = (name: 'status' | 'approval', options: readonly string[]) => {
    const e = described(errors, name);
    return html`<div class="field"><label for="${fieldId(name)}">${t(lang, `issue.received.${name}`)}</label><select id="${fieldId(name)}" name="${name}"${e.attrs}>
<option value="">${t(lang, `issue.received.${name}.any`)}</option>${options.map(
      (o) => html`<option value="${o}"${filters[name] === o ? html` selected` : ''}>${label(lang, `issue.received.${name}.${o}`)}</option>`,
    )}</select>${e.note}</div>`;
  };
  const text = (name: 'issuerRnc' | 'from' | 'to', key: MessageKey, type: string) => {
    const e = described(errors, name);
    return html`<div class="field"><label for="${fieldId(name)}">${t(lang, key)}</label><input id="${fieldId(name)}" name="${name}" type="${type}" value="${filters[name] ?? ''}"${e.attrs}>${e.note}</div>`;
  };
  return html`<form method="get" action="/console/received" class="filters" aria-label="${t(lang, 'issue.received.filters')}">
${choice('status', ['received', 'not_received'])}
${choice('approval', APPROVAL_STATES)}
${text('issuerRnc', 'issue.received.issuerRnc', 'text')}
${text('from', 'issue.received.from', 'date')}
${text('to', 'issue.received.to', 'date')}
<div class="filter-actions"><button type="submit">${t(lang, 'issue.received.apply')}</button> <a href="/console/received">${t(lang, 'issue.received.clear')}</a></div>
</form>`;
}

function inboxTable(lang: Lang, page: PagedReceivedEcf, filters: Filters): SafeHtml {
  if (page.items.length === 0) return html`<p>${t(lang, 'issue.received.empty')}</p>`;
  const link = (n: number) => `/console/received?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), page: String(n) }).toString()}`;
  return html`<p>${t(lang, 'issue.received.count', { count: count(lang, page.totalCount) })}</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="${t(lang, 'issue.received.title')}"><table>
<thead><tr><th scope="col">${t(lang, 'issue.received.encf')}</th><th scope="col">${t(lang, 'issue.received.issuer')}</th><th scope="col">${t(lang, 'issue.received.issueDate')}</th><th scope="col" class="number">${t(lang, 'issue.received.amount')}</th><th scope="col">${t(lang, 'issue.received.receivedAt')}</th><th scope="col">${t(lang, 'issue.received.approval')}</th></tr></thead>
<tbody>${page.items.map(
    (r) => html`<tr><th scope="row"><a href="/console/received/${r.id}">${r.encf}</a></th><td>${r.issuerName ?? ''} <span class="hint">${r.issuerRnc}</span></td><td class="nowrap">${r.issueDate ? date(lang, `${r.issueDate}T12:00:00-04:00`) : '—'}</td><td class="number nowrap">${amount(lang, r.montoTotal)}</td><td class="nowrap">${dateTime(lang, r.receivedAt)}</td><td>${label(lang, `issue.received.approval.${r.approvalState}`)}</td></tr>`,
  )}</tbody>
</table></div>
${page.totalPages > 1
  ? html`<nav aria-label="${t(lang, 'issue.received.paging')}" class="paging">${page.hasPreviousPage ? html`<a href="${link(page.page - 1)}" rel="prev">${t(lang, 'issue.received.previous')}</a>` : ''}
<span>${t(lang, 'issue.received.page', { page: page.page, pages: page.totalPages })}</span>${page.hasNextPage ? html`<a href="${link(page.page + 1)}" rel="next">${t(lang, 'issue.received.next')}</a>` : ''}</nav>`
  : ''}`;
}

async function renderDocument(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, id: string, errors: Record<string, string> = {}, reason = '', status = 200) {
  const { lang, session } = request.consoleRequest;
  const doc: ReceivedEcfView = await getReceivedEcf(app.engine, request.tenantId, id);
  const content = await receivedEcfContent(app.engine, request.tenantId, id);
  const answer = doc.commercialApproval;
  const mayAnswer = session !== null && mayPerform(session.principal.role, 'receivedEcf.commercialApproval') && doc.approvalState === 'pending';
  const reasonError = described(errors, 'rejectionReason');
  const decisionError = described(errors, 'decision');
  const total = (key: keyof typeof content.totals, labelKey: MessageKey) =>
    content.totals[key] !== null ? html`<div><dt>${t(lang, labelKey)}</dt><dd>${amount(lang, content.totals[key])}</dd></div>` : '';
  return sendPage(request, reply, {
    title: t(lang, 'issue.received.document', { encf: doc.encf }),
    status,
    main: html`<p><a href="/console/received">${t(lang, 'issue.received.back')}</a></p>
<dl class="facts">
<div><dt>${t(lang, 'issue.received.issuer')}</dt><dd>${doc.issuerName ?? ''} (${doc.issuerRnc})</dd></div>
<div><dt>${t(lang, 'issue.received.type')}</dt><dd>${doc.type ?? '—'}</dd></div>
<div><dt>${t(lang, 'issue.received.issueDate')}</dt><dd>${doc.issueDate ? date(lang, `${doc.issueDate}T12:00:00-04:00`) : '—'}</dd></div>
<div><dt>${t(lang, 'issue.received.receivedAt')}</dt><dd>${dateTime(lang, doc.receivedAt)}</dd></div>
<div><dt>${t(lang, 'issue.received.status')}</dt><dd>${label(lang, `issue.received.status.${doc.status}`)}</dd></div>
${doc.reception.reason ? html`<div><dt>${t(lang, 'issue.received.reason')}</dt><dd>${doc.reception.reason}</dd></div>` : ''}
<div><dt>${t(lang, 'issue.received.approval')}</dt><dd>${label(lang, `issue.received.approval.${doc.approvalState}`)}</dd></div>
</dl>
<section aria-labelledby="lines-heading"><h2 id="lines-heading">${t(lang, 'issue.received.lines')}</h2>
${content.lines.length === 0
  ? html`<p>${t(lang, 'issue.received.noLines')}</p>`
  : html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="lines-heading"><table>
<thead><tr><th scope="col" class="number">${t(lang, 'issue.received.number')}</th><th scope="col">${t(lang, 'issue.received.lineName')}</th><th scope="col" class="number">${t(lang, 'issue.received.quantity')}</th><th scope="col" class="number">${t(lang, 'issue.received.unitPrice')}</th><th scope="col" class="number">${t(lang, 'issue.received.discount')}</th><th scope="col" class="number">${t(lang, 'issue.received.lineAmount')}</th></tr></thead>
<tbody>${content.lines.map(
      (l) => html`<tr><td class="number">${l.number}</td><th scope="row">${l.name ?? ''}</th><td class="number">${l.quantity ?? ''}</td><td class="number">${amount(lang, l.unitPrice)}</td><td class="number">${l.discount ? amount(lang, l.discount) : ''}</td><td class="number">${amount(lang, l.amount)}</td></tr>`,
    )}</tbody></table></div>`}
</section>
<section aria-labelledby="totals-heading"><h2 id="totals-heading">${t(lang, 'issue.received.totals')}</h2>
<dl class="facts">${total('montoGravadoTotal', 'issue.totalTaxed')}${total('montoExento', 'issue.totalExempt')}${total('totalItbis', 'issue.totalItbis')}<div><dt>${t(lang, 'issue.total')}</dt><dd><strong>${amount(lang, doc.montoTotal)}</strong></dd></div></dl>
</section>
<section aria-labelledby="answer-heading"><h2 id="answer-heading">${t(lang, 'issue.received.answer')}</h2>
${answer
  ? html`<dl class="facts" data-answer>
<div><dt>${t(lang, 'issue.received.decision')}</dt><dd>${label(lang, `issue.received.approval.${answer.decision}`)}</dd></div>
${answer.rejectionReason ? html`<div><dt>${t(lang, 'issue.received.rejectionReason')}</dt><dd>${answer.rejectionReason}</dd></div>` : ''}
<div><dt>${t(lang, 'issue.received.decidedAt')}</dt><dd>${dateTime(lang, answer.decidedAt)}</dd></div>
<div><dt>${t(lang, 'issue.received.delivery.issuer')}</dt><dd>${label(lang, `issue.received.delivery.${answer.deliveries.issuer.status}`)}</dd></div>
<div><dt>${t(lang, 'issue.received.delivery.taxauth')}</dt><dd>${label(lang, `issue.received.delivery.${answer.deliveries.taxauth.status}`)}</dd></div>
</dl>`
  : doc.approvalState === 'pending'
    ? html`<p>${t(lang, 'issue.received.noAnswer')}</p>`
    : ''}
${mayAnswer
  ? html`<form method="post" action="/console/received/${doc.id}/answer" class="answer-form">
${csrfField(request)}
${decisionError.note}
<div class="field"><label for="${fieldId('rejectionReason')}">${t(lang, 'issue.received.rejectionReason')}</label>
<textarea id="${fieldId('rejectionReason')}" name="rejectionReason" maxlength="250" rows="3" aria-describedby="rejection-hint${errors.rejectionReason ? ` ${fieldId('rejectionReason')}-error` : ''}"${errors.rejectionReason ? html` aria-invalid="true"` : ''}>${reason}</textarea>
<p class="hint" id="rejection-hint">${t(lang, 'issue.received.rejectionReasonHint')}</p>${reasonError.note}</div>
<p class="answer-actions"><button type="submit" name="decision" value="accepted">${t(lang, 'issue.received.accept')}</button>
<button type="submit" name="decision" value="rejected" class="danger">${t(lang, 'issue.received.reject')}</button></p>
</form>`
  : ''}
</section>`,
  });
}

/**
 * GET /console/received: the inbox (e-CF other issuers sent the tenant);
 * GET /console/received/:id: one as a person reads it, with its answer;
 * POST /console/received/:id/answer: approve or reject it commercially (a
 * signed ACECF, through decideCommercialApproval as the API does).
 */
export default async function receivedRoutes(app: FastifyInstance) {
  app.get('/received', { config: { consoleAccess: 'receivedEcf.list' } }, async (request, reply) => {
    const { lang } = request.consoleRequest;
    const q = (request.query ?? {}) as Record<string, unknown>;
    const filters: Filters = Object.fromEntries(
      [...FILTERS, 'page'].map((k) => [k, typeof q[k] === 'string' ? (q[k] as string).trim() : '']).filter(([, v]) => v !== ''),
    );
    let page: PagedReceivedEcf | null = null;
    let errors: { fields: Record<string, string>; top: string[] } = { fields: {}, top: [] };
    try {
      page = await listReceivedEcf(app.engine, request.tenantId, { ...filters, PageSize: PAGE_SIZE });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      errors = byField(lang, e.errors, [...FILTERS, 'page']);
    }
    return sendPage(request, reply, {
      title: t(lang, 'issue.received.title'),
      status: page ? 200 : 400,
      main: html`${errors.top.length ? html`<div class="issue-errors" role="alert"><ul>${errors.top.map((m) => html`<li>${m}</li>`)}</ul></div>` : ''}
${filterForm(lang, filters, errors.fields)}
${page ? inboxTable(lang, page, filters) : ''}`,
    });
  });

  app.get('/received/:id', { config: { consoleAccess: 'receivedEcf.get' } }, async (request, reply) =>
    renderDocument(app, request, reply, (request.params as { id: string }).id),
  );

  app.post('/received/:id/answer', { config: { consoleAccess: 'receivedEcf.commercialApproval' } }, async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const decision = typeof body.decision === 'string' ? body.decision : '';
    const reason = typeof body.rejectionReason === 'string' ? body.rejectionReason.trim() : '';
    try {
      // An approval carries no reason: a reason typed and then "approve" is not an error for a person.
      await decideCommercialApproval(app.engine, request.tenantId, id, { decision, rejectionReason: decision === 'rejected' ? reason : null });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return renderDocument(app, request, reply, id, byField(request.consoleRequest.lang, e.errors, ['decision', 'rejectionReason']).fields, reason, 400);
    }
    flash(request, reply, 'flash.issue.answered');
    return reply.redirect(`/console/received/${id}`, 303);
  });
}
