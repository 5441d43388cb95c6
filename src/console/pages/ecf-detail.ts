import type { FastifyInstance } from 'fastify';
import { ecfXml, getEcf, notesModifyingEcf, type EcfView } from '../../engine/ecf/index.js';
import { ecfDocument, ecfRepresentation, LAYOUTS, type Layout, type PrintedEcf } from '../../engine/representation/index.js';
import { FINAL_STATES, listAttempts, retryRefusal, sendingOf, type AttemptView, type EcfSending } from '../../engine/submission/index.js';
import { retryEcf } from '../../engine/submission/retrying.js';
import { mayPerform } from '../access.js';
import { dateTime, date, money } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { isMessageKey, t, type Lang } from '../i18n/index.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { ECF_TYPE_CODES, statusCell, statusLabel } from './ecf-list.js';

/** The totals a person looks for first, in this order; the XML's other totals follow under their own names. */
const TOTAL_KEYS = ['MontoGravadoTotal', 'MontoExento', 'TotalITBIS', 'MontoImpuestoAdicional', 'MontoNoFacturable', 'MontoTotal', 'ValorPagar'] as const;
const isMoneyName = (name: string) => /^(Monto|Total|Valor|Saldo)/.test(name);

/** An amount from the XML's own text: formatted when it is a plain decimal, as written otherwise. */
function amount(lang: Lang, text: string | null): string {
  if (text === null) return '';
  try {
    return money(lang, text);
  } catch {
    return text;
  }
}

const typeLabel = (lang: Lang, type: number) =>
  (ECF_TYPE_CODES as readonly number[]).includes(type) ? t(lang, `ecf.type.${type as (typeof ECF_TYPE_CODES)[number]}`) : String(type);

/** An authority message in plain words: the console's explanation of the code where it has one, and the authority's own text. */
function message(lang: Lang, m: { code: number; value: string }): SafeHtml {
  const key = `ecf.message.${m.code}`;
  return html`<li>${isMessageKey(key) ? html`<strong>${t(lang, key)}</strong> ` : ''}<span lang="es">${m.value}</span> <span class="code">(${t(lang, 'ecf.message.code', { code: m.code })})</span></li>`;
}

const row = (label: string, value: SafeHtml | string | null | undefined) =>
  value === null || value === undefined || value === '' ? html`` : html`<div><dt>${label}</dt><dd>${value}</dd></div>`;

function summary(lang: Lang, e: EcfView, doc: PrintedEcf): SafeHtml {
  return html`<section aria-labelledby="h-summary"><h2 id="h-summary">${t(lang, 'ecf.detail.summary')}</h2>
<dl class="facts">
${row('e-NCF', e.encf)}
${row(t(lang, 'ecf.detail.type'), typeLabel(lang, e.type))}
${row(t(lang, 'ecf.detail.environment'), t(lang, `ecf.env.${e.environment}`))}
${row(t(lang, 'ecf.detail.issueDate'), date(lang, `${e.issueDate}T12:00:00-04:00`))}
${row(t(lang, 'ecf.detail.signedAt'), dateTime(lang, e.signedAt))}
${row(t(lang, 'ecf.detail.securityCode'), html`<code>${e.securityCode}</code>`)}
${row(t(lang, 'ecf.detail.expires'), e.sequenceExpiresOn ? date(lang, `${e.sequenceExpiresOn}T12:00:00-04:00`) : null)}
${row(t(lang, 'ecf.detail.internalNumber'), e.internalNumber)}
${row(t(lang, 'ecf.list.total'), amount(lang, doc.totals.MontoTotal ?? String(e.montoTotal)))}
</dl>
${e.signedDuringContingency ? html`<p>${t(lang, 'ecf.detail.contingency')}</p>` : ''}
<p><a href="${e.qrUrl}" rel="noreferrer">${t(lang, 'ecf.detail.qr')}</a></p>
</section>`;
}

function parties(lang: Lang, doc: PrintedEcf): SafeHtml {
  const i = doc.issuer;
  const b = doc.buyer;
  const place = (...parts: (string | null)[]) => parts.filter(Boolean).join(', ');
  return html`<div class="parties">
<section aria-labelledby="h-issuer"><h2 id="h-issuer">${t(lang, 'ecf.detail.issuer')}</h2><dl class="facts">
${row(t(lang, 'ecf.detail.name'), i.tradeName ? `${i.legalName} (${i.tradeName})` : i.legalName)}
${row(t(lang, 'ecf.detail.rnc'), i.rnc)}
${row(t(lang, 'ecf.detail.address'), place(i.address, i.municipality, i.province))}
${row(t(lang, 'ecf.detail.email'), i.email)}
</dl></section>
<section aria-labelledby="h-buyer"><h2 id="h-buyer">${t(lang, 'ecf.detail.buyer')}</h2>${
    b
      ? html`<dl class="facts">
${row(t(lang, 'ecf.detail.name'), b.name)}
${row(t(lang, 'ecf.detail.rnc'), b.rnc)}
${row(t(lang, 'ecf.detail.foreignId'), b.foreignId)}
${row(t(lang, 'ecf.detail.address'), place(b.address, b.municipality, b.province, b.country))}
${row(t(lang, 'ecf.detail.email'), b.email)}
</dl>`
      : html`<p>${t(lang, 'ecf.detail.noBuyer')}</p>`
  }</section>
</div>`;
}

function lines(lang: Lang, doc: PrintedEcf): SafeHtml {
  const indicator = (n: number) => (n >= 0 && n <= 4 ? t(lang, `ecf.detail.indicator.${n as 0 | 1 | 2 | 3 | 4}`) : String(n));
  return html`<section aria-labelledby="h-lines"><h2 id="h-lines">${t(lang, 'ecf.detail.lines')}</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col" class="number">${t(lang, 'ecf.detail.line')}</th><th scope="col">${t(lang, 'ecf.detail.item')}</th><th scope="col" class="number">${t(lang, 'ecf.detail.quantity')}</th><th scope="col" class="number">${t(lang, 'ecf.detail.unitPrice')}</th><th scope="col">${t(lang, 'ecf.detail.itbis')}</th><th scope="col" class="number">${t(lang, 'ecf.detail.amount')}</th></tr></thead>
<tbody>${doc.lines.map(
    (l) => html`<tr><td class="number">${l.number}</td><th scope="row">${l.name}${l.description ? html`<br><span class="hint">${l.description}</span>` : ''}</th><td class="number">${l.quantity}</td><td class="number">${amount(lang, l.unitPrice)}</td><td>${indicator(l.indicator)}</td><td class="number">${amount(lang, l.amount)}</td></tr>`,
  )}</tbody>
</table></div>
</section>`;
}

function totals(lang: Lang, doc: PrintedEcf): SafeHtml {
  const names = [...TOTAL_KEYS.filter((k) => doc.totals[k] !== undefined), ...Object.keys(doc.totals).filter((k) => !(TOTAL_KEYS as readonly string[]).includes(k))];
  return html`<section aria-labelledby="h-totals"><h2 id="h-totals">${t(lang, 'ecf.detail.totals')}</h2>
<dl class="facts totals">${names.map((k) => row(isMessageKey(`ecf.total.${k}`) ? t(lang, `ecf.total.${k}` as 'ecf.total.MontoTotal') : k, isMoneyName(k) ? amount(lang, doc.totals[k]!) : doc.totals[k]!))}</dl>
${doc.additionalTaxes.length
    ? html`<h3>${t(lang, 'ecf.detail.taxes')}</h3><table><thead><tr><th scope="col">${t(lang, 'ecf.detail.taxCode')}</th><th scope="col" class="number">${t(lang, 'ecf.detail.taxRate')}</th><th scope="col" class="number">${t(lang, 'ecf.detail.amount')}</th></tr></thead>
<tbody>${doc.additionalTaxes.map((x) => html`<tr><th scope="row">${x.code}</th><td class="number">${x.rate ?? ''}</td><td class="number">${amount(lang, x.especifico ?? x.advalorem ?? x.otros)}</td></tr>`)}</tbody></table>`
    : ''}
</section>`;
}

function reference(lang: Lang, doc: PrintedEcf): SafeHtml {
  const r = doc.reference;
  if (!r) return html``;
  return html`<section aria-labelledby="h-reference"><h2 id="h-reference">${t(lang, 'ecf.detail.reference')}</h2><dl class="facts">
${row(t(lang, 'ecf.detail.modifiedNcf'), r.modifiedNcf ? html`<a href="/console/ecf?Search=${r.modifiedNcf}">${r.modifiedNcf}</a>` : null)}
${row(t(lang, 'ecf.detail.modifiedDate'), r.modifiedNcfDate)}
${row(t(lang, 'ecf.detail.reason'), r.reason)}
</dl></section>`;
}

/** Where the sending stands while it is under way: the next call and when, and what held it back. */
function sendingNow(lang: Lang, s: EcfSending): SafeHtml | '' {
  if (!s.next || !s.dueAt) return '';
  return html`<div class="sending"><p>${t(lang, `ecf.detail.sending.${s.next}`, { when: dateTime(lang, s.dueAt) })}${s.inFlight ? html` ${t(lang, 'ecf.detail.sending.now')}` : ''}</p>
${s.failures > 0 ? html`<p>${t(lang, 'ecf.detail.sending.failures', { count: String(s.failures), error: s.lastError ?? '' })}</p>` : ''}
${s.busy > 0 ? html`<p>${t(lang, 'ecf.detail.sending.busy', { count: String(s.busy) })}</p>` : ''}</div>`;
}

function authority(lang: Lang, e: EcfView, attempts: readonly AttemptView[], sending: EcfSending): SafeHtml {
  const ta = e.taxauth;
  const outcome = (o: string) => (['accepted', 'accepted_conditional', 'rejected', 'review', 'failed'].includes(o) ? t(lang, `ecf.outcome.${o as 'accepted'}`) : o);
  return html`<section aria-labelledby="h-authority"><h2 id="h-authority">${t(lang, 'ecf.detail.authority')}</h2>
${sendingNow(lang, sending)}
${ta?.trackId ? html`<p>${t(lang, 'ecf.detail.trackId')}: <code>${ta.trackId}</code></p>` : ''}
${ta?.messages?.length ? html`<ul class="messages">${ta.messages.map((m) => message(lang, m))}</ul>` : html`<p>${t(lang, 'ecf.detail.noMessages')}</p>`}
${e.status === 'rejected' && ta?.sequenceUsed !== undefined ? html`<p>${t(lang, ta.sequenceUsed ? 'ecf.sequenceUsed' : 'ecf.sequenceFree')}</p>` : ''}
<h3>${t(lang, 'ecf.detail.attempts')}</h3>
${attempts.length
    ? html`<div class="table-wrap"><table><thead><tr><th scope="col" class="number">${t(lang, 'ecf.detail.attempt')}</th><th scope="col">${t(lang, 'ecf.detail.when')}</th><th scope="col">${t(lang, 'ecf.detail.outcome')}</th><th scope="col">${t(lang, 'ecf.detail.messages')}</th></tr></thead>
<tbody>${attempts.map((a) => html`<tr><th scope="row" class="number">${a.attempt}</th><td>${dateTime(lang, a.recordedAt)}</td><td>${outcome(a.outcome)}</td><td>${a.messages.length ? html`<ul class="messages">${a.messages.map((m) => message(lang, m))}</ul>` : ''}</td></tr>`)}</tbody></table></div>`
    : html`<p>${t(lang, 'ecf.detail.noAttempts')}</p>`}
</section>`;
}

function documents(lang: Lang, e: EcfView): SafeHtml {
  const base = `/console/ecf/${e.id}`;
  return html`<section aria-labelledby="h-pdf"><h2 id="h-pdf">${t(lang, 'ecf.detail.pdf')}</h2>
<ul class="downloads">${LAYOUTS.map((l) => html`<li><a href="${base}/pdf?layout=${l}&amp;download=true" download>${t(lang, 'ecf.detail.download', { layout: t(lang, `ecf.detail.layout.${l}`) })}</a></li>`)}
<li><a href="${base}/xml" download>${t(lang, 'ecf.detail.xml')}</a></li></ul>
<iframe class="pdf" src="${base}/pdf?layout=letter" title="${t(lang, 'ecf.detail.pdfFrame', { encf: e.encf })}"></iframe>
</section>`;
}

function notes(lang: Lang, list: Awaited<ReturnType<typeof notesModifyingEcf>>): SafeHtml {
  return html`<section aria-labelledby="h-notes"><h2 id="h-notes">${t(lang, 'ecf.detail.notes')}</h2>
${list.length ? html`<ul>${list.map((n) => html`<li><a href="/console/ecf/${n.id}">${n.encf}</a> · ${typeLabel(lang, n.type)} · ${amount(lang, String(n.montoTotal))} · ${statusLabel(lang, n.status)}</li>`)}</ul>` : html`<p>${t(lang, 'ecf.detail.noNotes')}</p>`}
</section>`;
}

/**
 * GET /console/ecf/:id: one e-CF as a person reads it (from its signed
 * XML), the authority's answer and every submission, its PDF in the page
 * and to download in each layout, the XML as stored, the notes that modify
 * it, and a retry button where retryEcf would accept it and the role may.
 */
export default async function ecfDetailRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string } }>('/ecf/:id', { config: { consoleAccess: 'ecf.get' } }, async (request, reply) => {
    const { lang, session } = request.consoleRequest;
    const role = session!.principal.role;
    const e = await getEcf(app.engine, request.tenantId, request.params.id);
    const [doc, attempts, modifying, sending] = await Promise.all([
      ecfDocument(app.engine, request.tenantId, e.id),
      mayPerform(role, 'ecf.attempts') ? listAttempts(app.engine, request.tenantId, e.id) : Promise.resolve([]),
      e.type === 33 || e.type === 34 ? Promise.resolve([]) : notesModifyingEcf(app.engine, request.tenantId, e),
      sendingOf(app.engine, e),
    ]);
    const canRetry = mayPerform(role, 'ecf.retry') && retryRefusal({ status: e.status, encf: e.encf, sequenceUsed: e.taxauth?.sequenceUsed }) === null;
    const open = !FINAL_STATES.has(e.status);
    return sendPage(request, reply, {
      title: t(lang, 'ecf.detail.title', { encf: e.encf }),
      main: html`<div class="ecf-detail"><p><a href="/console/ecf">${t(lang, 'ecf.detail.back')}</a></p>
<div class="ecf-status"${open ? html` data-poll="/console/ecf/statuses?ids=${e.id}"` : ''}><p>${t(lang, 'ecf.detail.status')}: ${statusCell(lang, e.id, e.status)}</p></div>
${canRetry
  ? html`<form class="retry" method="post" action="/console/ecf/${e.id}/retry" data-confirm="${t(lang, 'ecf.detail.retryConfirm')}">${csrfField(request)}<button type="submit" aria-describedby="retry-hint">${t(lang, 'ecf.detail.retry')}</button> <span class="hint" id="retry-hint">${t(lang, 'ecf.detail.retryHint')}</span></form>`
  : ''}
${summary(lang, e, doc)}
${parties(lang, doc)}
${lines(lang, doc)}
${totals(lang, doc)}
${reference(lang, doc)}
${authority(lang, e, attempts, sending)}
${e.type === 33 || e.type === 34 ? '' : notes(lang, modifying)}
${documents(lang, e)}</div>`,
    });
  });

  app.post<{ Params: { id: string } }>('/ecf/:id/retry', { config: { consoleAccess: 'ecf.retry' } }, async (request, reply) => {
    const e = await retryEcf(app.engine, request.tenantId, request.params.id);
    flash(request, reply, 'flash.ecf.retried');
    return reply.redirect(`/console/ecf/${e.id}`, 303);
  });

  app.get<{ Params: { id: string }; Querystring: { layout?: string; download?: string } }>(
    '/ecf/:id/pdf',
    { config: { consoleAccess: 'ecf.representation' } },
    async (request, reply) => {
      const r = await ecfRepresentation(app.engine, request.tenantId, request.params.id, { layout: request.query.layout as Layout | undefined });
      return reply
        .type('application/pdf')
        .header('cache-control', 'no-store')
        // Shown in the detail page's frame: this one response may be framed by the console's own pages.
        .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'")
        .header('content-disposition', `${request.query.download === 'true' ? 'attachment' : 'inline'}; filename="${r.fileName}"`)
        .send(r.pdf);
    },
  );

  app.get<{ Params: { id: string } }>('/ecf/:id/xml', { config: { consoleAccess: 'ecf.xml' } }, async (request, reply) => {
    const { encf, bytes } = await ecfXml(app.engine, request.tenantId, request.params.id);
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${encf}.xml"`)
      .send(bytes); // the signed bytes as stored, never re-serialised
  });
}
