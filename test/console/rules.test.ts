import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { listQueryOf } from '../../src/console/pages/ecf-list.js';
import { toPayload, type IssueForm } from '../../src/console/pages/issue-form.js';
import { RULE_CODES } from '../../src/console/i18n/rule-codes.js';
import { RULE_FIELDS } from '../../src/console/i18n/rule-fields.js';
import { engineMessage, ruleMessage, ruleSentence, sentence } from '../../src/console/i18n/rules.js';
import { ECF_CODES } from '../../src/engine/documents/codes.js';
import { prepareDocument } from '../../src/engine/documents/prepare.js';
import { ListQuery } from '../../src/engine/ecf/queries.js';
import { EngineError, ValidationError, type FieldError } from '../../src/engine/errors.js';
import { ReceivedListQuery } from '../../src/engine/reception/queries.js';
import { AnnulBody, AddRangeInput } from '../../src/engine/sequences/schemas.js';
import { check } from '../../src/engine/validation.js';
import { buildApp } from '../../src/http/app.js';
import { seedIssuer, testEngine } from '../helpers.js';
import { FORM, form, signIn } from './inject.js';

/**
 * The console's Spanish for the engine's refusals: every rule the console's
 * forms can break has a Spanish sentence (found by breaking them: fast-check
 * drives the engine's own validation with what a person could type), and a
 * Spanish page shows it beside the field.
 */

const RUNS = Number(process.env.RULES_RUNS ?? 3000);

/** What a person could type in a field, wrong or right: the engine's rules meet both. */
const typed = fc.oneof(
  fc.constantFrom('', ' ', 'abc', '-1', '0', '1', '2', '3', '5', '6', '18', '16', '0.001', '1.5', '1e5', '1,000.00', '99999999999999999999', '12.345', '131880681', '00112345678', '12', 'Ñandú', '\u0001', 'x'.repeat(200), '2026-13-01', '2026-03-11', '2026-03-01', '01', '07', '31', '32', '33', '34', '41', '43', '44', '45', '46', '47', '99', '-5.5', '1000000', 'E310000000001', 'exempt', 'taxed', 'non_invoiceable'),
  fc.string({ maxLength: 12 }),
);
const line = fc.record({ name: typed, quantity: typed, unitPrice: typed, itbisRate: typed, discount: typed });
const issueForm = fc.record({ type: typed, incomeType: typed, buyerRnc: typed, buyerName: typed, paymentCondition: typed, idempotencyKey: fc.constant(''), lines: fc.array(line, { maxLength: 3 }) });
/** The fields the issue page is gaining (payment.dueDate, reference.*, an exempt choice), typed the same way. */
const coming = fc.record(
  { dueDate: typed, modifiedNcf: typed, modifiedNcfDate: typed, modificationCode: typed, taxTreatment: typed },
  { requiredKeys: [] },
);

/** The payload the form makes, with the coming fields where given (empty ones left out, as the form does). */
function payloadOf(f: IssueForm, extra: Partial<Record<'dueDate' | 'modifiedNcf' | 'modifiedNcfDate' | 'modificationCode' | 'taxTreatment', string>>) {
  const { payload } = toPayload(f);
  const given = (v: string | undefined) => v !== undefined && v !== '';
  const payment = payload.payment as Record<string, unknown>;
  if (given(extra.dueDate)) payment.dueDate = extra.dueDate;
  const reference = Object.fromEntries(
    (['modifiedNcf', 'modifiedNcfDate', 'modificationCode'] as const).filter((k) => given(extra[k])).map((k) => [k, extra[k]]),
  );
  if (Object.keys(reference).length > 0) payload.reference = reference;
  if (given(extra.taxTreatment)) for (const l of payload.lines as Record<string, unknown>[]) l.taxTreatment = extra.taxTreatment;
  return payload;
}

/** The errors the catalogue has no sentence for, as `field:code`. */
const untranslated = (errors: readonly FieldError[]): string[] => errors.filter((e) => ruleSentence(e) === undefined).map((e) => `${e.path}:${e.code} (${e.message})`);

const errorsOf = (run: () => unknown): readonly FieldError[] => {
  try {
    run();
    return [];
  } catch (e) {
    if (e instanceof ValidationError) return e.errors;
    throw e;
  }
};

describe('the console speaks Spanish when the engine refuses', () => {
  it('has a Spanish sentence for every rule the issue form can break (the form as it is, and with the fields it is gaining)', () => {
    const missing = new Set<string>();
    let refused = 0;
    fc.assert(
      fc.property(issueForm, coming, (f, extra) => {
        for (const payload of [toPayload(f as IssueForm).payload, payloadOf(f as IssueForm, extra)]) {
          const { errors } = prepareDocument(payload, { sequenceMode: 'managed', today: '2026-03-10' });
          if (errors.length) refused++;
          for (const e of errors) {
            // Never the English sentence on a Spanish page.
            if (ruleMessage('es', e) === sentence(e)) missing.add(`${e.path.replace(/\[\d+\]/g, '')}:${e.code} (${e.message})`);
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect([...missing]).toEqual([]);
    expect(refused).toBeGreaterThan(RUNS / 2);
  });

  it('has a Spanish sentence for every refusal of the e-CF and received lists’ filters', () => {
    const filters = fc.record({ From: typed, To: typed, MinAmount: typed, MaxAmount: typed, Search: typed, Page: typed, PageSize: typed, Type: typed, Status: typed, Environment: typed, Sort: typed }, { requiredKeys: [] });
    const inbox = fc.record({ Status: typed, Approval: typed, IssuerRnc: typed, From: typed, To: typed, Page: typed }, { requiredKeys: [] });
    const missing = new Set<string>();
    fc.assert(
      fc.property(filters, inbox, (q, r) => {
        // The e-CF list: listEcf's validation of what the console's form makes of the query string.
        for (const e of untranslated(errorsOf(() => check(ListQuery, listQueryOf(q))))) missing.add(e);
        for (const e of untranslated(errorsOf(() => check(ReceivedListQuery, Object.fromEntries(Object.entries(r).filter(([, v]) => v.trim() !== '')), 'query')))) missing.add(e);
      }),
      { numRuns: RUNS },
    );
    expect([...missing]).toEqual([]);
  });

  it('has a Spanish sentence for every shape refusal of the sequence forms', () => {
    const whole = (v: string) => (/^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : v);
    const missing = new Set<string>();
    fc.assert(
      fc.property(fc.record({ environment: typed, type: typed, rangeFrom: typed, rangeTo: typed, expiresOn: typed, reason: typed }), (b) => {
        const load = { tenantId: '8d0f3c3e-4a6b-4c1e-9a51-2f0d2f6f7a10', environment: b.environment, type: whole(b.type), rangeFrom: whole(b.rangeFrom), rangeTo: whole(b.rangeTo), expiresOn: b.expiresOn || null };
        const annul = { environment: b.environment, reason: b.reason, lines: [{ type: whole(b.type), series: 'E', rangeFrom: whole(b.rangeFrom), rangeTo: whole(b.rangeTo) }] };
        for (const e of untranslated([...errorsOf(() => check(AddRangeInput, load)), ...errorsOf(() => check(AnnulBody, annul))])) missing.add(e);
      }),
      { numRuns: RUNS },
    );
    expect([...missing]).toEqual([]);
  });

  it('has every e-CF rule code, says required fields as the form always did, and keeps English pages in the engine’s words', () => {
    for (const code of Object.values(ECF_CODES)) expect(RULE_CODES[code], code).toBeDefined();
    for (const [key, s] of Object.entries({ ...RULE_CODES, ...RULE_FIELDS })) {
      expect(s.es.trim(), key).not.toBe('');
      expect(s.en.trim(), key).not.toBe('');
    }
    const required: FieldError = { path: 'lines[0].quantity', code: 'Ecf.FieldRequired', message: 'lines[0].quantity is required' };
    expect(ruleMessage('es', required)).toBe('Es obligatorio.');
    expect(ruleMessage('en', required)).toBe('Required.');
    const rnc: FieldError = { path: 'buyer.rnc', code: 'Ecf.InvalidFormat', message: 'buyer.rnc must be an RNC of 9 digits or a cédula of 11 digits' };
    expect(ruleMessage('en', rnc)).toBe('Must be an RNC of 9 digits or a cédula of 11 digits.');
    expect(ruleMessage('es', rnc)).toBe('Debe ser un RNC de 9 dígitos o una cédula de 11 dígitos, solo dígitos.');
    // A field-specific sentence wins over the code's; an unknown code falls back to the engine's words.
    expect(ruleMessage('es', { path: 'lines[3].quantity', code: 'Union', message: 'must be a decimal number' })).toContain('punto decimal');
    expect(ruleMessage('es', { path: 'x', code: 'No.SuchCode', message: 'must be odd' })).toBe('Must be odd.');
    const wrongPassword = new EngineError('validation', 'Certificate.WrongPassword', 'The password does not open this certificate file.');
    expect(engineMessage('es', wrongPassword)).toBe('La contraseña no abre este archivo de certificado.');
    expect(engineMessage('en', wrongPassword)).toBe(wrongPassword.message);
  });
});

describe('a Spanish page shows the Spanish sentence beside the field', () => {
  const apps: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it('on the issue form and the e-CF list; an English page keeps the engine’s sentence', async () => {
    const engine = await testEngine();
    const ours = await seedIssuer(engine);
    const app = await buildApp({ engine });
    apps.push(app);
    const { cookie, csrf } = await signIn(app, ours.keys.emisor);
    const issue = { type: '31', incomeType: '01', 'buyer.rnc': '12', 'buyer.name': 'Constructora Ejemplo SRL', 'payment.condition': '1', 'lines[0].name': 'Cemento gris', 'lines[0].quantity': '10', 'lines[0].unitPrice': '350,00', 'lines[0].itbisRate': '18', 'lines[0].discount': '' };
    const post = (lang: string) =>
      app.inject({ method: 'POST', url: '/console/issue', headers: { ...FORM, cookie: `${cookie}; ecf_lang=${lang}` }, payload: form({ _csrf: csrf, idempotencyKey: `rules-${lang}`, ...issue }) });
    const beside = (body: string, id: string) => new RegExp(`<p class="field-error" id="${id}-error"[^>]*>([^<]*)</p>`).exec(body)?.[1];

    const es = await post('es');
    expect(es.statusCode).toBe(400);
    expect(beside(es.body, 'f-buyer-rnc')).toBe('Debe ser un RNC de 9 dígitos o una cédula de 11 dígitos, solo dígitos.');
    expect(beside(es.body, 'f-lines-0-unitPrice')).toBe('Debe ser un número con punto decimal y sin separador de miles, p. ej. 1234.50.');
    const en = await post('en');
    expect(beside(en.body, 'f-buyer-rnc')).toBe('Must be an RNC of 9 digits or a cédula of 11 digits.');

    const list = await app.inject({ method: 'GET', url: '/console/ecf?From=2026-13-01&MinAmount=1%2C000', headers: { cookie } });
    expect(list.statusCode).toBe(400);
    expect(list.body).toContain('<span class="field-error" id="f-From-error">Debe ser una fecha válida (año-mes-día).</span>');
    expect(list.body).toContain('<span class="field-error" id="f-MinAmount-error">Debe ser un número con punto decimal y sin separador de miles, p. ej. 1234.50.</span>');

    // The certification checklist: the portal's headings, and what each side does in the page's language.
    const admin = await signIn(app, ours.keys.admin_tenant);
    const checklist = (lang: string) => app.inject({ method: 'GET', url: '/console/certification', headers: { cookie: `${admin.cookie}; ecf_lang=${lang}` } });
    const esPage = (await checklist('es')).body;
    expect(esPage).toContain('Pruebas de Datos e-CF');
    expect(esPage).toContain('firma el XML que genera el portal');
    expect(esPage).not.toContain('signs the XML the portal generates');
    expect((await checklist('en')).body).toContain('signs the XML the portal generates');
  });
});
