import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dryRunIssue, TYPE_NAMES, type ValidationResult } from '../../engine/documents/index.js';
import { recentBuyers } from '../../engine/ecf/index.js';
import { issueAndWait } from '../../engine/ecf/issuing.js';
import { ValidationError } from '../../engine/errors.js';
import { money } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { t, type Lang, type MessageKey } from '../i18n/index.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { EMPTY_LINES, emptyLine, EXEMPT, fieldId, FORM_TYPES, formErrors, MAX_LINES, NOTE_TYPES, readForm, toPayload, type FormErrors, type IssueForm, type LineField } from './issue-form.js';

const INCOME_TYPES = ['01', '02', '03', '04', '05', '06'] as const;
const CONDITIONS = ['1', '2', '3'] as const;
const ITBIS_RATES = ['18', '16', '0', EXEMPT] as const;
const MODIFICATION_CODES = ['1', '2', '3', '4', '5'] as const;
/** The totals shown as typed, in the order a person reads them. */
const TOTALS: readonly { key: string; label: MessageKey }[] = [
  { key: 'montoGravadoTotal', label: 'issue.totalTaxed' },
  { key: 'montoExento', label: 'issue.totalExempt' },
  { key: 'totalItbis', label: 'issue.totalItbis' },
  { key: 'montoTotal', label: 'issue.total' },
];
const NO_ERRORS: FormErrors = { byField: {}, top: [] };

/** A control's error attributes and the message beside it. */
function errorOf(errors: FormErrors, name: string): { attrs: SafeHtml; note: SafeHtml } {
  const text = errors.byField[name];
  const id = `${fieldId(name)}-error`;
  return {
    attrs: text ? html` aria-invalid="true" aria-describedby="${id}"` : html``,
    note: html`<p class="field-error" id="${id}" data-error-for="${name}"${text ? '' : html` hidden`}>${text ?? ''}</p>`,
  };
}

function input(lang: Lang, errors: FormErrors, name: string, label: MessageKey, value: string, extra: SafeHtml = html``, hint?: MessageKey): SafeHtml {
  const e = errorOf(errors, name);
  const hintId = `${fieldId(name)}-hint`;
  // A hint joins the control's description beside its error (errorOf names only the error).
  const attrs = hint ? html`${e.attrs.value ? html` aria-invalid="true"` : ''} aria-describedby="${hintId}${e.attrs.value ? ` ${fieldId(name)}-error` : ''}"` : e.attrs;
  return html`<div class="field"><label for="${fieldId(name)}">${t(lang, label)}</label><input id="${fieldId(name)}" name="${name}" value="${value}"${extra}${attrs}>${hint ? html`<span class="hint" id="${hintId}">${t(lang, hint)}</span>` : ''}${e.note}</div>`;
}

function select(lang: Lang, errors: FormErrors, name: string, label: MessageKey, value: string, options: readonly { value: string; text: string }[]): SafeHtml {
  const e = errorOf(errors, name);
  return html`<div class="field"><label for="${fieldId(name)}">${t(lang, label)}</label><select id="${fieldId(name)}" name="${name}"${e.attrs}>${options.map(
    (o) => html`<option value="${o.value}"${o.value === value ? html` selected` : ''}>${o.text}</option>`,
  )}</select>${e.note}</div>`;
}

/** The document a note modifies: shown for a note, or when it holds something; the script shows it as the type changes. */
function referenceFieldset(lang: Lang, errors: FormErrors, form: IssueForm): SafeHtml {
  const shown = NOTE_TYPES.includes(form.type) || [form.modifiedNcf, form.modifiedNcfDate, form.modificationCode].some((v) => v !== '') ||
    Object.keys(errors.byField).some((k) => k.startsWith('reference.'));
  return html`<fieldset data-note-reference="${NOTE_TYPES.join(' ')}"${shown ? '' : html` hidden`}><legend>${t(lang, 'issue.reference')}</legend>
${input(lang, errors, 'reference.modifiedNcf', 'issue.modifiedNcf', form.modifiedNcf, html` autocomplete="off" maxlength="19"`)}
${input(lang, errors, 'reference.modifiedNcfDate', 'issue.modifiedNcfDate', form.modifiedNcfDate, html` type="date"`)}
${select(lang, errors, 'reference.modificationCode', 'issue.modificationCode', form.modificationCode, [{ value: '', text: t(lang, 'issue.choose') }, ...MODIFICATION_CODES.map((c) => ({ value: c, text: t(lang, `issue.modification.${c}`) }))])}
</fieldset>`;
}

function lineFieldset(lang: Lang, errors: FormErrors, line: Record<LineField, string>, i: number): SafeHtml {
  const n = (f: LineField) => `lines[${i}].${f}`;
  const decimal = html` inputmode="decimal" autocomplete="off"`;
  return html`<fieldset class="issue-line" data-line>
<legend>${t(lang, 'issue.line', { n: i + 1 })}</legend>
${input(lang, errors, n('name'), 'issue.lineName', line.name, html` class="wide" maxlength="80" autocomplete="off"`)}
${input(lang, errors, n('quantity'), 'issue.quantity', line.quantity, decimal)}
${input(lang, errors, n('unitPrice'), 'issue.unitPrice', line.unitPrice, decimal)}
${select(lang, errors, n('itbisRate'), 'issue.itbisRate', line.itbisRate, ITBIS_RATES.map((r) => ({ value: r, text: t(lang, `issue.itbis.${r}`) })))}
${input(lang, errors, n('discount'), 'issue.discount', line.discount, decimal)}
<button type="submit" class="secondary remove-line" name="action" value="remove:${i}" formnovalidate>${t(lang, 'issue.removeLine', { n: i + 1 })}</button>
</fieldset>`;
}

/** The totals as the engine computed them (valid documents only), formatted for the language. */
function totalsOf(lang: Lang, result: ValidationResult | null): Record<string, string> {
  const totals = (result?.preview?.totals ?? {}) as Record<string, string | undefined>;
  return Object.fromEntries(TOTALS.map(({ key }) => [key, totals[key] !== undefined ? money(lang, totals[key]) : '—']));
}

async function renderForm(request: FastifyRequest, reply: FastifyReply, app: FastifyInstance, form: IssueForm, errors: FormErrors, result: ValidationResult | null, status = 200) {
  const { lang } = request.consoleRequest;
  const buyers = await recentBuyers(app.engine, request.tenantId);
  const totals = totalsOf(lang, result);
  const linesError = errorOf(errors, 'lines');
  const hasErrors = errors.top.length > 0 || Object.keys(errors.byField).length > 0;
  return sendPage(request, reply, {
    title: t(lang, 'issue.title'),
    status,
    main: html`<p>${t(lang, 'issue.intro')}</p>
<div class="issue-errors" role="alert" data-top-errors${hasErrors ? '' : html` hidden`}>
${hasErrors ? html`<p><strong>${t(lang, 'issue.errors')}</strong></p>` : ''}
<ul>${errors.top.map((m) => html`<li>${m}</li>`)}</ul>
</div>
<form method="post" action="/console/issue" class="issue-form" data-issue-form data-line-label="${t(lang, 'issue.line', { n: '{n}' })}" data-remove-label="${t(lang, 'issue.removeLine', { n: '{n}' })}" novalidate>
${csrfField(request)}
<input type="hidden" name="idempotencyKey" value="${form.idempotencyKey}">
<fieldset><legend>${t(lang, 'issue.document')}</legend>
${select(lang, errors, 'type', 'issue.type', form.type, FORM_TYPES.map((ty) => ({ value: String(ty), text: `${ty} ${TYPE_NAMES[ty]}` })))}
<p class="hint">${t(lang, 'issue.otherTypes')}</p>
${select(lang, errors, 'incomeType', 'issue.incomeType', form.incomeType, INCOME_TYPES.map((v) => ({ value: v, text: t(lang, `issue.incomeType.${v}`) })))}
</fieldset>
<fieldset><legend>${t(lang, 'issue.buyer')}</legend>
${input(lang, errors, 'buyer.rnc', 'issue.buyerRnc', form.buyerRnc, html` list="recent-buyers" inputmode="numeric" autocomplete="off"`)}
<datalist id="recent-buyers">${buyers.map((b) => html`<option value="${b.rnc}">${b.name ?? ''}</option>`)}</datalist>
${input(lang, errors, 'buyer.name', 'issue.buyerName', form.buyerName, html` class="wide" maxlength="150" autocomplete="off"`)}
</fieldset>
<fieldset><legend>${t(lang, 'issue.payment')}</legend>
${select(lang, errors, 'payment.condition', 'issue.paymentCondition', form.paymentCondition, CONDITIONS.map((c) => ({ value: c, text: t(lang, `issue.payment.${c}`) })))}
${input(lang, errors, 'payment.dueDate', 'issue.dueDate', form.dueDate, html` type="date"`, 'issue.dueDateHint')}
</fieldset>
${referenceFieldset(lang, errors, form)}
<section class="issue-lines" aria-labelledby="lines-heading">
<h2 id="lines-heading">${t(lang, 'issue.lines')}</h2>
${linesError.note}
<div data-lines>${form.lines.map((line, i) => lineFieldset(lang, errors, line, i))}</div>
<button type="submit" class="secondary" name="action" value="add" formnovalidate data-add-line>${t(lang, 'issue.addLine')}</button>
</section>
<section class="issue-totals" aria-labelledby="totals-heading">
<h2 id="totals-heading">${t(lang, 'issue.totals')}</h2>
<dl aria-live="polite">${TOTALS.map(({ key, label }) => html`<div><dt>${t(lang, label)}</dt><dd data-total="${key}">${totals[key]}</dd></div>`)}</dl>
<p class="hint" data-totals-pending${result?.valid ? html` hidden` : ''}>${t(lang, 'issue.totalsPending')}</p>
</section>
<p><button type="submit" name="action" value="issue">${t(lang, 'issue.submit')}</button></p>
</form>`,
  });
}

/** The form's lines after an "add line" or "remove line N" submit (the form without JavaScript). */
function edited(form: IssueForm, action: string): IssueForm | null {
  if (action === 'add') return { ...form, lines: form.lines.length < MAX_LINES ? [...form.lines, emptyLine()] : form.lines };
  const remove = /^remove:(\d+)$/.exec(action);
  if (remove) {
    const lines = form.lines.filter((_, i) => i !== Number(remove[1]));
    return { ...form, lines: lines.length ? lines : [emptyLine()] };
  }
  return null;
}

/**
 * GET|POST /console/issue: issuing from a form (a business with no
 * point-of-sale software), and POST /console/issue/preview: the engine's own
 * validation and totals (dryRunIssue, as POST /api/v1/ecf/validate) for the
 * script that shows them as the person types.
 */
export default async function issueRoutes(app: FastifyInstance) {
  app.get('/issue', { config: { consoleAccess: 'ecf.issue' } }, async (request, reply) => {
    const form: IssueForm = { ...readForm({}), idempotencyKey: randomUUID(), lines: Array.from({ length: EMPTY_LINES }, emptyLine) };
    return renderForm(request, reply, app, form, NO_ERRORS, null);
  });

  app.post('/issue', { config: { consoleAccess: 'ecf.issue' } }, async (request, reply) => {
    const { lang } = request.consoleRequest;
    const posted = readForm(request.body);
    // A key the form did not make (a hand-made POST): a fresh one, which issues at most this once.
    const form = { ...posted, idempotencyKey: posted.idempotencyKey || randomUUID(), lines: posted.lines.length ? posted.lines : [emptyLine()] };
    const action = typeof (request.body as Record<string, unknown> | undefined)?.action === 'string' ? String((request.body as Record<string, unknown>).action) : 'issue';
    const { payload, rows } = toPayload(form);
    const changed = edited(form, action);
    if (changed) return renderForm(request, reply, app, changed, NO_ERRORS, await dryRunIssue(app.engine, request.tenantId, toPayload(changed).payload));

    const result = await dryRunIssue(app.engine, request.tenantId, payload);
    if (!result.valid) return renderForm(request, reply, app, form, formErrors(lang, result.errors, rows), result, 400);
    try {
      const { ecf } = await issueAndWait(app.engine, request.tenantId, { idempotencyKey: form.idempotencyKey, payload });
      flash(request, reply, 'flash.issue.issued');
      return reply.redirect(`/console/ecf/${ecf.id}`, 303);
    } catch (e) {
      if (e instanceof ValidationError) return renderForm(request, reply, app, form, formErrors(lang, e.errors, rows), null, 400);
      throw e;
    }
  });

  app.post('/issue/preview', { config: { consoleAccess: 'ecf.validate' } }, async (request) => {
    const { lang } = request.consoleRequest;
    const { payload, rows } = toPayload(readForm(request.body));
    const result = await dryRunIssue(app.engine, request.tenantId, payload);
    const errors = formErrors(lang, result.errors, rows);
    return { valid: result.valid, totals: result.valid ? totalsOf(lang, result) : null, errors: errors.byField, top: errors.top };
  });
}

