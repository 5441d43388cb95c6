import type { FastifyInstance } from 'fastify';
import { dominicanDate } from '../../engine/clock.js';
import { listEcf } from '../../engine/ecf/index.js';
import { count, date } from '../format.js';
import { html } from '../html.js';
import { t } from '../i18n/index.js';
import { sendPage } from '../layout.js';

/** The states an e-CF goes through, in the order a person reads them. */
const STATUSES = ['signed', 'accepted', 'accepted_conditional', 'rejected', 'review', 'failed'] as const;

/** GET /console/: the tenant's day at a glance (today's e-CF by status, Dominican day). */
export default async function overviewRoutes(app: FastifyInstance) {
  app.get('/', { config: { consoleAccess: 'ecf.list' } }, async (request, reply) => {
    const { lang } = request.consoleRequest;
    const now = app.engine.clock.now();
    const today = dominicanDate(now);
    // The list's own counts (kept counters where it has them), one status at a time.
    const counts = await Promise.all(
      STATUSES.map(async (status) => ({
        status,
        n: (await listEcf(app.engine, request.tenantId, { From: today, To: today, Status: status, PageSize: 1 })).totalCount,
      })),
    );
    const total = counts.reduce((sum, c) => sum + c.n, 0);
    return sendPage(request, reply, {
      title: t(lang, 'overview.title'),
      main: html`<section aria-labelledby="today">
<h2 id="today">${t(lang, 'overview.today', { date: date(lang, now) })}</h2>
<table>
<thead><tr><th scope="col">${t(lang, 'overview.status')}</th><th scope="col" class="number">${t(lang, 'overview.count')}</th></tr></thead>
<tbody>${counts.map((c) => html`<tr><th scope="row">${t(lang, `status.${c.status}`)}</th><td class="number">${count(lang, c.n)}</td></tr>`)}</tbody>
<tfoot><tr><th scope="row">${t(lang, 'overview.total')}</th><td class="number">${count(lang, total)}</td></tr></tfoot>
</table>
</section>`,
    });
  });
}
