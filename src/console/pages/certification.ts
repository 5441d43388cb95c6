import type { FastifyInstance } from 'fastify';
import { getCertification, PASOS } from '../../engine/certification/index.js';
import { dateTime } from '../format.js';
import { html } from '../html.js';
import { t } from '../i18n/index.js';
import { pasoText } from '../i18n/pasos.js';
import { sendPage } from '../layout.js';

/** GET /console/certification: the authority's 14 Pasos, and where each stands (the state `ecf certify` keeps). */
export default async function certificationRoutes(app: FastifyInstance) {
  app.get('/certification', { config: { consoleAccess: 'taxauth.connection' } }, async (request, reply) => {
    const { lang } = request.consoleRequest;
    const certification = await getCertification(app.engine, request.tenantId);
    return sendPage(request, reply, {
      title: t(lang, 'certif.title'),
      main: html`<p>${certification ? t(lang, 'certif.started', { date: dateTime(lang, certification.startedAt), updated: dateTime(lang, certification.updatedAt) }) : html`${t(lang, 'certif.notStarted')} <code>ecf certify start</code>`}</p>
<ol class="pasos">${PASOS.map((p) => {
        const record = certification?.pasos[p.paso] ?? { state: 'pending' as const, at: null };
        const said = pasoText(lang, p);
        return html`<li class="paso paso-${record.state}">
<h2 id="paso-${p.paso}">${t(lang, 'certif.paso')} ${p.paso}: ${p.title} <span class="badge paso-state-${record.state}">${t(lang, `certif.state.${record.state}`)}</span></h2>
<dl>
${said.appliance ? html`<dt>${t(lang, 'certif.appliance')}</dt><dd>${said.appliance}${p.command ? html` (<code>${p.command}</code>)` : ''}</dd>` : ''}
${said.person ? html`<dt>${t(lang, 'certif.person')}</dt><dd>${said.person}</dd>` : ''}
${record.note ? html`<dt>${t(lang, 'certif.note')}</dt><dd>${record.note}${record.at ? html` · ${dateTime(lang, record.at)}` : ''}</dd>` : ''}
</dl></li>`;
      })}</ol>`,
    });
  });
}
