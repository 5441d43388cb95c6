import type { FastifyInstance } from 'fastify';
import { listDeliveries, listWebhooks, retryDelivery } from '../../engine/webhooks/index.js';
import { mayPerform } from '../access.js';
import { count, dateTime } from '../format.js';
import { html } from '../html.js';
import { t } from '../i18n/index.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { scroller } from './admin-form.js';

/** Deliveries shown per endpoint: the newest; the API pages through the rest. */
const RECENT = 10;

/** GET /console/webhooks: the endpoints and their recent deliveries; a dead one can be retried (admins). */
export default async function webhooksRoutes(app: FastifyInstance) {
  app.get('/webhooks', { config: { consoleAccess: 'webhooks.list' } }, async (request, reply) => {
    const { lang, session } = request.consoleRequest;
    const role = session!.principal.role;
    const endpoints = await listWebhooks(app.engine, request.tenantId);
    const showDeliveries = mayPerform(role, 'webhooks.deliveries');
    const mayRetry = mayPerform(role, 'webhooks.retryDelivery');
    const deliveries = showDeliveries
      ? await Promise.all(endpoints.map(async (e) => (await listDeliveries(app.engine, request.tenantId, e.id, { pageSize: RECENT })).items))
      : endpoints.map(() => []);
    return sendPage(request, reply, {
      title: t(lang, 'hook.title'),
      main: endpoints.length
        ? html`${endpoints.map(
            (e, i) => html`<section class="webhook" aria-labelledby="hook-${e.id}">
<h2 id="hook-${e.id}" class="url">${e.url}</h2>
<p>${e.description ?? ''} <span class="badge${e.enabled ? '' : ' warn'}">${t(lang, e.enabled ? 'hook.enabled' : 'hook.disabled')}</span>${e.consecutiveFailures > 0 ? html` <span>${t(lang, 'admin.failures')}: ${count(lang, e.consecutiveFailures)}</span>` : ''}</p>
${showDeliveries
  ? deliveries[i]!.length
    ? scroller(`${t(lang, 'hook.deliveries')} ${e.url}`, html`<table><caption>${t(lang, 'hook.deliveries')}</caption><thead><tr><th scope="col">${t(lang, 'hook.event')}</th><th scope="col">${t(lang, 'admin.status')}</th><th scope="col" class="number">${t(lang, 'hook.attempts')}</th><th scope="col">${t(lang, 'hook.lastError')}</th><th scope="col">${t(lang, 'admin.date')}</th>${mayRetry ? html`<th scope="col">${t(lang, 'admin.actions')}</th>` : ''}</tr></thead>
<tbody>${deliveries[i]!.map((d) => html`<tr><th scope="row">${d.eventType}</th><td><span class="badge delivery-${d.status}">${t(lang, `hook.status.${d.status}`)}</span></td><td class="number">${count(lang, d.attempts)}</td><td>${d.lastStatusCode ?? ''} ${d.lastError ?? ''}</td><td>${dateTime(lang, d.updatedAt)}</td>${
      mayRetry
        ? html`<td>${d.status === 'dead' ? html`<form method="post" action="/console/webhooks/${e.id}/deliveries/${d.id}/retry">${csrfField(request)}<button type="submit" aria-label="${t(lang, 'hook.retry')} ${d.eventType}">${t(lang, 'hook.retry')}</button></form>` : ''}</td>`
        : ''
    }</tr>`)}</tbody></table>`)
    : html`<p>${t(lang, 'hook.deliveries.none')}</p>`
  : ''}
</section>`,
          )}`
        : html`<p>${t(lang, 'hook.none')}</p>`,
    });
  });

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    { config: { consoleAccess: 'webhooks.retryDelivery' } },
    async (request, reply) => {
      await retryDelivery(app.engine, request.tenantId, request.params.id, request.params.deliveryId);
      flash(request, reply, 'flash.deliveryRetried');
      return reply.redirect('/console/webhooks', 303);
    },
  );
}
