import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ECF_TYPES } from '../../engine/documents/index.js';
import { EngineError } from '../../engine/errors.js';
import { ENVIRONMENTS } from '../../engine/schema-types.js';
import { addRange, listRanges, SERIES } from '../../engine/sequences/index.js';
import { annulSequences, listAnnulments } from '../../engine/sequences/annulling.js';
import { mayPerform } from '../access.js';
import { count, date, dateTime } from '../format.js';
import { html } from '../html.js';
import { t, type Lang } from '../i18n/index.js';
import { engineMessage } from '../i18n/rules.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { field, fieldErrors, formError, scroller } from './admin-form.js';

type Form = Record<string, string | undefined>;
interface Refused {
  readonly form: 'load' | 'annul';
  readonly values: Form;
  readonly errors: Map<string, string>;
}

/** A form's whole number as the engine's number; anything else as typed, for the engine to refuse by name. */
const whole = (value: string | undefined): number | string | undefined => (value !== undefined && /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : value);

/** A refusal the person can correct (a field, an overlap, an annulment the authority cannot take) stays on the page beside the form. */
function refusal(lang: Lang, error: unknown): Map<string, string> | null {
  const fields = fieldErrors(lang, error);
  if (fields) return fields;
  if (error instanceof EngineError && error.kind === 'conflict') return new Map([['', engineMessage(lang, error)]]);
  return null;
}

async function sequencesPage(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, refused?: Refused) {
  const { lang, session } = request.consoleRequest;
  const role = session!.principal.role;
  const [ranges, annulments] = await Promise.all([
    listRanges(app.engine, request.tenantId),
    mayPerform(role, 'sequences.annulments') ? listAnnulments(app.engine, request.tenantId) : Promise.resolve([]),
  ]);
  const v = (form: Refused['form'], name: string) => (refused?.form === form ? refused.values[name] : undefined);
  const errs = (form: Refused['form']) => (refused?.form === form ? refused.errors : undefined);
  const environments = ENVIRONMENTS.map((e) => ({ value: e, label: e }));
  const types = ECF_TYPES.map((n) => ({ value: String(n), label: String(n) }));
  const load = mayPerform(role, 'sequences.allocate')
    ? html`<section aria-labelledby="load"><h2 id="load">${t(lang, 'seq.load')}</h2>
<p class="hint">${t(lang, 'seq.load.hint')}</p>
<form method="post" action="/console/sequences/load" class="admin-form">${csrfField(request)}${formError(errs('load'))}
${field({ id: 'load-environment', name: 'environment', label: t(lang, 'admin.environment'), errors: errs('load'), options: environments, value: v('load', 'environment') })}
${field({ id: 'load-type', name: 'type', label: t(lang, 'admin.type'), errors: errs('load'), options: types, value: v('load', 'type') })}
${field({ id: 'load-from', name: 'rangeFrom', label: t(lang, 'seq.from'), errors: errs('load'), value: v('load', 'rangeFrom'), attrs: html` inputmode="numeric" required` })}
${field({ id: 'load-to', name: 'rangeTo', label: t(lang, 'seq.to'), errors: errs('load'), value: v('load', 'rangeTo'), attrs: html` inputmode="numeric" required` })}
${field({ id: 'load-expires', name: 'expiresOn', label: t(lang, 'seq.expiresOn'), hint: t(lang, 'seq.expiresOn.hint'), errors: errs('load'), value: v('load', 'expiresOn'), attrs: html` type="date"` })}
<button type="submit">${t(lang, 'seq.load.submit')}</button>
</form></section>`
    : '';
  const annul = mayPerform(role, 'sequences.annulments')
    ? html`<section aria-labelledby="annul"><h2 id="annul">${t(lang, 'seq.annul')}</h2>
<p class="hint">${t(lang, 'seq.annul.hint')}</p>
<form method="post" action="/console/sequences/annul" class="admin-form" data-confirm="${t(lang, 'seq.annul.confirm')}">${csrfField(request)}${formError(errs('annul'))}
${field({ id: 'annul-environment', name: 'environment', label: t(lang, 'admin.environment'), errors: errs('annul'), options: environments, value: v('annul', 'environment') })}
${field({ id: 'annul-type', name: 'type', label: t(lang, 'admin.type'), errors: errs('annul'), options: types, value: v('annul', 'type') })}
${field({ id: 'annul-from', name: 'rangeFrom', label: t(lang, 'seq.from'), errors: errs('annul'), value: v('annul', 'rangeFrom'), attrs: html` inputmode="numeric" required` })}
${field({ id: 'annul-to', name: 'rangeTo', label: t(lang, 'seq.to'), errors: errs('annul'), value: v('annul', 'rangeTo'), attrs: html` inputmode="numeric" required` })}
${field({ id: 'annul-reason', name: 'reason', label: t(lang, 'seq.reason'), errors: errs('annul'), value: v('annul', 'reason'), attrs: html` required maxlength="500"` })}
<button type="submit">${t(lang, 'seq.annul.submit')}</button>
</form>
<h3>${t(lang, 'seq.annulments')}</h3>
${annulments.length
  ? scroller(t(lang, 'seq.annulments'), html`<table><thead><tr><th scope="col">${t(lang, 'admin.date')}</th><th scope="col">${t(lang, 'admin.environment')}</th><th scope="col">${t(lang, 'seq.range')}</th><th scope="col" class="number">${t(lang, 'seq.count')}</th><th scope="col">${t(lang, 'admin.status')}</th></tr></thead>
<tbody>${annulments.map((a) => html`<tr><th scope="row">${dateTime(lang, a.createdAt)}</th><td>${a.environment}</td><td>${a.lines.map((l) => `${l.type} ${l.series}${l.rangeFrom}–${l.rangeTo}`).join(', ')}</td><td class="number">${count(lang, a.totalCount)}</td><td>${a.status}</td></tr>`)}</tbody></table>`)
  : html`<p>${t(lang, 'seq.annulments.none')}</p>`}
</section>`
    : '';
  return sendPage(request, reply, {
    title: t(lang, 'seq.title'),
    status: refused ? 400 : 200,
    main: html`<section aria-labelledby="ranges"><h2 id="ranges">${t(lang, 'seq.ranges')}</h2>
${ranges.length
  ? scroller(t(lang, 'seq.ranges'), html`<table><thead><tr><th scope="col">${t(lang, 'admin.type')}</th><th scope="col">${t(lang, 'admin.environment')}</th><th scope="col">${t(lang, 'seq.range')}</th><th scope="col" class="number">${t(lang, 'seq.next')}</th><th scope="col" class="number">${t(lang, 'admin.remaining')}</th><th scope="col">${t(lang, 'admin.expires')}</th><th scope="col">${t(lang, 'admin.status')}</th></tr></thead>
<tbody>${ranges.map((r) => html`<tr><th scope="row">${r.type}<span class="type-name">${r.typeName}</span></th><td>${r.environment}</td><td>${r.series}${r.rangeFrom}–${r.rangeTo}</td><td class="number">${r.next}</td><td class="number">${count(lang, r.remaining)}${r.isLowStock ? html` <span class="badge warn">${t(lang, 'admin.lowStock')}</span>` : ''}</td><td>${r.expiresOn ? date(lang, `${r.expiresOn}T12:00:00Z`) : t(lang, 'admin.never')}</td><td>${t(lang, r.active ? 'seq.active' : 'seq.inactive')}</td></tr>`)}</tbody></table>`)
  : html`<p>${t(lang, 'admin.stock.none')}</p>`}
</section>
${load}
${annul}`,
  });
}

/** GET /console/sequences: the ranges per type and environment; load a range, annul unused numbers (admins). */
export default async function sequencesRoutes(app: FastifyInstance) {
  app.get('/sequences', { config: { consoleAccess: 'sequences.list' } }, async (request, reply) => sequencesPage(app, request, reply));

  app.post<{ Body: Form }>('/sequences/load', { config: { consoleAccess: 'sequences.allocate' } }, async (request, reply) => {
    const body = request.body ?? {};
    try {
      await addRange(app.engine, {
        tenantId: request.tenantId,
        environment: body.environment,
        type: whole(body.type),
        rangeFrom: whole(body.rangeFrom),
        rangeTo: whole(body.rangeTo),
        expiresOn: body.expiresOn ? body.expiresOn : null,
      });
    } catch (error) {
      const errors = refusal(request.consoleRequest.lang, error);
      if (!errors) throw error;
      return sequencesPage(app, request, reply, { form: 'load', values: body, errors });
    }
    flash(request, reply, 'flash.rangeLoaded');
    return reply.redirect('/console/sequences', 303);
  });

  app.post<{ Body: Form }>('/sequences/annul', { config: { consoleAccess: 'sequences.annulments' } }, async (request, reply) => {
    const body = request.body ?? {};
    try {
      await annulSequences(app.engine, request.tenantId, {
        environment: body.environment,
        reason: body.reason,
        lines: [{ type: whole(body.type), series: SERIES, rangeFrom: whole(body.rangeFrom), rangeTo: whole(body.rangeTo) }],
      });
    } catch (error) {
      const errors = refusal(request.consoleRequest.lang, error);
      if (!errors) throw error;
      return sequencesPage(app, request, reply, { form: 'annul', values: body, errors });
    }
    flash(request, reply, 'flash.annulled');
    return reply.redirect('/console/sequences', 303);
  });
}
