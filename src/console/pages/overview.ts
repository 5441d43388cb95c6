import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listCertificates } from '../../engine/certificates/index.js';
import { dominicanDate } from '../../engine/clock.js';
import { listEcf } from '../../engine/ecf/index.js';
import { emissionState } from '../../engine/limits/index.js';
import { listReceivedEcf } from '../../engine/reception/index.js';
import { ENVIRONMENTS } from '../../engine/schema-types.js';
import { listRanges } from '../../engine/sequences/index.js';
import { authorityStatus, currentWindow } from '../../engine/taxauth/index.js';
import { listWebhooks } from '../../engine/webhooks/index.js';
import { mayPerform } from '../access.js';
import { count, date, dateTime } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { t, type Lang } from '../i18n/index.js';
import { sendPage } from '../layout.js';
import { scroller } from './admin-form.js';

/** The states an e-CF goes through, in the order a person reads them. */
const STATUSES = ['signed', 'accepted', 'accepted_conditional', 'rejected', 'review', 'failed'] as const;
/** The states that need a person (the e-CF page says what to do with each). */
const NEED_A_PERSON = ['rejected', 'failed'] as const;
/** Rows of each short list; "see all" leads to the rest. */
const SHORT = 5;

/** The authority's availability per environment and any maintenance window in force (contingency), from the stored snapshot: no call to the authority while the page loads. */
async function authoritySection(app: FastifyInstance, lang: Lang): Promise<SafeHtml> {
  const { configured, snapshot } = await authorityStatus(app.engine, { refresh: 'never' });
  if (!configured || !snapshot) return html`<p>${t(lang, 'admin.authority.notConfigured')} <code>ecf taxauth status-key set</code></p>`;
  const window = currentWindow(snapshot, ENVIRONMENTS, app.engine.clock.now());
  return html`<ul class="plain">${ENVIRONMENTS.map((e) => html`<li>${e}: ${snapshot.environments[e]?.status ?? t(lang, 'admin.authority.unknown')}</li>`)}</ul>
<p>${window ? t(lang, 'admin.authority.contingency', { date: dateTime(lang, window.endsAt) }) : t(lang, 'admin.authority.noContingency')}</p>
<p class="hint">${t(lang, 'admin.authority.checked', { date: dateTime(lang, snapshot.checkedAt) })}</p>`;
}

async function emissionSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const state = await emissionState(app.engine, request.tenantId);
  if (!state.paused) return html`<p>${t(lang, 'admin.emission.open')}</p>`;
  return html`<p class="warn">${t(lang, 'admin.emission.paused', { source: t(lang, state.source === 'organization' ? 'admin.emission.organization' : 'admin.emission.tenant'), reason: state.reason ?? '' })}
${state.until ? t(lang, 'admin.emission.until', { date: dateTime(lang, state.until) }) : ''}</p>`;
}

async function attentionSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const pages = await Promise.all(NEED_A_PERSON.map((Status) => listEcf(app.engine, request.tenantId, { Status, PageSize: SHORT })));
  const rows = pages.flatMap((p) => p.items).sort((a, b) => b.issuedAt.localeCompare(a.issuedAt)).slice(0, SHORT);
  if (rows.length === 0) return html`<p>${t(lang, 'admin.attention.none')}</p>`;
  return html`<ul class="plain">${rows.map((e) => html`<li><a href="/console/ecf/${e.id}">${e.encf}</a> · ${t(lang, `status.${e.status as (typeof NEED_A_PERSON)[number]}`)} · ${dateTime(lang, e.issuedAt)}</li>`)}</ul>
${NEED_A_PERSON.map((s, i) => (pages[i]!.totalCount > 0 ? html`<p><a href="/console/ecf?Status=${s}">${t(lang, 'admin.seeAll')}: ${t(lang, `status.${s}`)} (${count(lang, pages[i]!.totalCount)})</a></p>` : ''))}`;
}

async function receivedSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const page = await listReceivedEcf(app.engine, request.tenantId, { Approval: 'pending', PageSize: SHORT });
  if (page.items.length === 0) return html`<p>${t(lang, 'admin.received.none')}</p>`;
  return html`<ul class="plain">${page.items.map((r) => html`<li><a href="/console/received/${r.id}">${r.encf}</a> · ${r.issuerName ?? r.issuerRnc} · ${dateTime(lang, r.receivedAt)}</li>`)}</ul>
${page.totalCount > page.items.length ? html`<p><a href="/console/received?approval=pending">${t(lang, 'admin.seeAll')} (${count(lang, page.totalCount)})</a></p>` : ''}`;
}

async function certificateSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const active = (await listCertificates(app.engine, request.tenantId)).find((c) => c.status === 'active');
  return html`<p>${active ? t(lang, 'admin.certExpiry.active', { date: date(lang, active.notAfter) }) : t(lang, 'admin.certExpiry.none')}</p>`;
}

async function stockSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const ranges = (await listRanges(app.engine, request.tenantId)).filter((r) => r.active);
  if (ranges.length === 0) return html`<p>${t(lang, 'admin.stock.none')}</p>`;
  return scroller(t(lang, 'admin.stock'), html`<table><thead><tr><th scope="col">${t(lang, 'admin.type')}</th><th scope="col">${t(lang, 'admin.environment')}</th><th scope="col" class="number">${t(lang, 'admin.remaining')}</th><th scope="col">${t(lang, 'admin.expires')}</th></tr></thead>
<tbody>${ranges.map((r) => html`<tr><th scope="row">${r.type}</th><td>${r.environment}</td><td class="number">${count(lang, r.remaining)}${r.isLowStock ? html` <span class="badge warn">${t(lang, 'admin.lowStock')}</span>` : ''}</td><td>${r.expiresOn ? date(lang, `${r.expiresOn}T12:00:00Z`) : t(lang, 'admin.never')}</td></tr>`)}</tbody></table>`);
}

async function webhookSection(app: FastifyInstance, request: FastifyRequest, lang: Lang): Promise<SafeHtml> {
  const failing = (await listWebhooks(app.engine, request.tenantId)).filter((w) => w.consecutiveFailures > 0 || !w.enabled);
  if (failing.length === 0) return html`<p>${t(lang, 'admin.failingWebhooks.none')}</p>`;
  return html`<ul class="plain">${failing.map((w) => html`<li><a href="/console/webhooks">${w.url}</a> · ${t(lang, 'admin.failures')}: ${count(lang, w.consecutiveFailures)}${w.enabled ? '' : html` · ${t(lang, 'hook.disabled')}`}</li>`)}</ul>`;
}

/** A card of the overview; `wide` spans two columns where the page has them (a table of several columns). */
const section = (id: string, title: string, body: SafeHtml, wide = false) => html`<section class="${wide ? 'card wide' : 'card'}" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`;

/** GET /console/: the tenant's day at a glance; each part from its engine function, the admin parts for the roles that may see them. */
export default async function overviewRoutes(app: FastifyInstance) {
  app.get('/', { config: { consoleAccess: 'ecf.list' } }, async (request, reply) => {
    const { lang, session } = request.consoleRequest;
    const role = session!.principal.role;
    const may = (op: Parameters<typeof mayPerform>[1]) => mayPerform(role, op);
    const now = app.engine.clock.now();
    const today = dominicanDate(now);
    const [counts, authority, emission, attention, received, certificate, stock, webhooks] = await Promise.all([
      // The list's own counts (kept counters where it has them), one status at a time.
      Promise.all(STATUSES.map(async (status) => ({ status, n: (await listEcf(app.engine, request.tenantId, { From: today, To: today, Status: status, PageSize: 1 })).totalCount }))),
      authoritySection(app, lang),
      may('emission.get') ? emissionSection(app, request, lang) : null,
      attentionSection(app, request, lang),
      may('receivedEcf.list') ? receivedSection(app, request, lang) : null,
      may('certificates.list') ? certificateSection(app, request, lang) : null,
      may('sequences.list') ? stockSection(app, request, lang) : null,
      may('webhooks.list') ? webhookSection(app, request, lang) : null,
    ]);
    const total = counts.reduce((sum, c) => sum + c.n, 0);
    return sendPage(request, reply, {
      title: t(lang, 'overview.title'),
      main: html`<div class="overview">
<section class="card" aria-labelledby="today">
<h2 id="today">${t(lang, 'overview.today', { date: date(lang, now) })}</h2>
<table>
<thead><tr><th scope="col">${t(lang, 'overview.status')}</th><th scope="col" class="number">${t(lang, 'overview.count')}</th></tr></thead>
<tbody>${counts.map((c) => html`<tr><th scope="row">${t(lang, `status.${c.status}`)}</th><td class="number">${count(lang, c.n)}</td></tr>`)}</tbody>
<tfoot><tr><th scope="row">${t(lang, 'overview.total')}</th><td class="number">${count(lang, total)}</td></tr></tfoot>
</table>
</section>
${section('attention', t(lang, 'admin.attention'), attention)}
${received ? section('received', t(lang, 'admin.received'), received) : ''}
${section('authority', t(lang, 'admin.authority'), authority)}
${emission ? section('emission', t(lang, 'admin.emission'), emission) : ''}
${certificate ? section('certificate', t(lang, 'admin.certExpiry'), certificate) : ''}
${stock ? section('stock', t(lang, 'admin.stock'), stock, true) : ''}
${webhooks ? section('webhooks', t(lang, 'admin.failingWebhooks'), webhooks) : ''}
</div>`,
    });
  });
}
