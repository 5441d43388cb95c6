import { undici } from '../../engine/net/undici.js';
import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import { SANDBOX_TAXPAYER_RNC, type TaxpayerIdentity } from '../taxpayer.js';
import { multipartBody, signAcecf, signSeed } from '../taxpayer-wire.js';
import { parseXml, textOf, verifySignature } from '../verify.js';
import type { PlayerReport } from './mode.js';

/**
 * The authority's side of Pasos 9 and 11 (CERTIFICATION.md §4.3): it calls
 * the applicant's receiver at the URL the person registered (the host and
 * prefix; the fixed suffixes are appended), authenticates with seed and
 * token, sends signed documents as the sandbox taxpayer and checks each
 * answer.
 */

const TIMEOUT_MS = 15_000;

interface Answer {
  readonly status: number;
  readonly body: string;
}

const trim = (url: string) => url.replace(/\/+$/, '');

/** Seed, signed seed, token: the token, or why not. */
async function authenticate(identity: TaxpayerIdentity, base: string): Promise<{ token: string } | { error: string }> {
  try {
    const seed = await undici().request(`${base}/fe/autenticacion/api/semilla`, { headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    const seedXml = await seed.body.text();
    if (seed.statusCode !== 200) return { error: `GET ${base}/fe/autenticacion/api/semilla answered ${seed.statusCode}: ${seedXml.slice(0, 200)}` };
    let signed: string;
    try {
      signed = signSeed(seedXml, identity.key);
    } catch (e) {
      return { error: `the seed from ${base}/fe/autenticacion/api/semilla is not a SemillaModel with valor and fecha: ${(e as Error).message}` };
    }
    const form = multipartBody('xml', 'semilla.xml', 'text/xml', Buffer.from(signed, 'utf8'));
    const grant = await undici().request(`${base}/fe/autenticacion/api/validacioncertificado`, {
      method: 'POST',
      headers: { 'content-type': form.contentType, 'content-length': String(form.body.length), accept: 'application/json' },
      body: form.body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const text = await grant.body.text();
    if (grant.statusCode !== 200) return { error: `POST ${base}/fe/autenticacion/api/validacioncertificado answered ${grant.statusCode}: ${text.slice(0, 200)}` };
    const token = (() => {
      try {
        return (JSON.parse(text) as { token?: unknown }).token;
      } catch {
        return /<token>([^<]+)<\/token>/.exec(text)?.[1];
      }
    })();
    if (typeof token !== 'string' || !token) return { error: `validacioncertificado answered without a token: ${text.slice(0, 200)}` };
    return { token };
  } catch (e) {
    return { error: `${base}/fe/autenticacion cannot be reached: ${(e as Error).message}` };
  }
}

async function post(base: string, path: string, xml: string, fileName: string, token: string | null): Promise<Answer> {
  const form = multipartBody('xml', fileName, 'text/xml', Buffer.from(xml, 'utf8'));
  const res = await undici().request(`${base}/fe/${path}`, {
    method: 'POST',
    headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': form.contentType, 'content-length': String(form.body.length) },
    body: form.body,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  return { status: res.statusCode, body: await res.body.text() };
}

/** What is wrong with an ARECF answered to `encf` (empty when right). */
export function arecfProblems(body: string, expected: { issuerRnc: string; buyerRnc: string; encf: string; estado: '0' | '1'; motivo?: string }, at: Date): string[] {
  const parsed = parseXml(body);
  if (!parsed.ok) return [`the answer is not XML: ${parsed.reason}`];
  if (parsed.root.localName !== 'ARECF') return [`the answer's root is ${parsed.root.localName}, not ARECF`];
  const problems: string[] = [];
  const schema = validateAgainstSchema('arecf', body);
  if (!schema.valid) problems.push(`the ARECF does not follow its schema: ${schema.errors.slice(0, 3).join('; ')}`);
  const signature = verifySignature(body, parsed, at);
  if (!signature.ok) problems.push(`the ARECF's signature is not valid: ${signature.reason}`);
  const want: [string, string | undefined][] = [
    ['RNCEmisor', expected.issuerRnc],
    ['RNCComprador', expected.buyerRnc],
    ['eNCF', expected.encf],
    ['Estado', expected.estado],
    ['CodigoMotivoNoRecibido', expected.motivo],
  ];
  for (const [name, value] of want) {
    const got = textOf(parsed.root, name) ?? undefined;
    if (got !== value) problems.push(`${name} is ${got ?? '(absent)'}, expected ${value ?? '(absent)'}`);
  }
  return problems;
}

export interface Paso9Options {
  readonly url: string;
  readonly applicantRnc: string;
  readonly identity: TaxpayerIdentity;
  readonly now: Date;
  /** Signed e-CF from the sandbox taxpayer to the applicant. */
  readonly makeEcf: () => { xml: string; encf: string };
  readonly count: number;
  /** Also a tampered e-CF, expecting "no recibido" with motivo 2 (SILENT whether DGII sends faulty ones). */
  readonly faulty: boolean;
}

/** Paso 9: signed e-CF to `{url}/fe/recepcion/api/ecf`, each answer a signed ARECF naming it, received. */
export async function playPaso9(o: Paso9Options): Promise<PlayerReport> {
  const base = trim(o.url);
  const auth = await authenticate(o.identity, base);
  const documents: PlayerReport['documents'][number][] = [];
  const token = 'token' in auth ? auth.token : null;
  const cases: { xml: string; encf: string; estado: '0' | '1'; motivo?: string }[] = [];
  for (let i = 0; i < o.count; i++) cases.push({ ...o.makeEcf(), estado: '0' });
  if (o.faulty) {
    const made = o.makeEcf();
    cases.push({ xml: made.xml.replace(/<MontoTotal>([^<]*)<\/MontoTotal>/, (_m, v: string) => `<MontoTotal>${v === '1.00' ? '2.00' : '1.00'}</MontoTotal>`), encf: made.encf, estado: '1', motivo: '2' });
  }
  for (const c of cases) {
    try {
      const answer = await post(base, 'recepcion/api/ecf', c.xml, `${SANDBOX_TAXPAYER_RNC}${c.encf}.xml`, token);
      const problems =
        answer.status === 200
          ? arecfProblems(answer.body, { issuerRnc: SANDBOX_TAXPAYER_RNC, buyerRnc: o.applicantRnc, encf: c.encf, estado: c.estado, ...(c.motivo && { motivo: c.motivo }) }, o.now)
          : [`HTTP ${answer.status}: ${answer.body.slice(0, 200)}`];
      documents.push({ encf: c.encf, ok: problems.length === 0, status: answer.status, problems });
    } catch (e) {
      documents.push({ encf: c.encf, ok: false, status: null, problems: [`${base}/fe/recepcion/api/ecf cannot be reached: ${(e as Error).message}`] });
    }
  }
  return report(base, o.now, auth, documents);
}

export interface ApprovalTarget {
  readonly encf: string;
  /** FechaEmision as the e-CF wrote it (dd-MM-yyyy). */
  readonly issueDate: string;
  readonly montoTotal: string;
  readonly buyerRnc: string;
}

export interface Paso11Options {
  readonly url: string;
  readonly applicantRnc: string;
  readonly identity: TaxpayerIdentity;
  readonly now: Date;
  readonly targets: readonly ApprovalTarget[];
}

/**
 * Paso 11: a signed ACECF (Estado 1) over each e-CF the applicant issued and
 * the authority accepted, to `{url}/fe/aprobacioncomercial/api/ecf`; right
 * when the answer is HTTP 200 (the body is UNCERTAIN, §4.3).
 */
export async function playPaso11(o: Paso11Options): Promise<PlayerReport> {
  const base = trim(o.url);
  const auth = await authenticate(o.identity, base);
  const token = 'token' in auth ? auth.token : null;
  const documents: PlayerReport['documents'][number][] = [];
  for (const t of o.targets) {
    const xml = signAcecf(
      { issuerRnc: o.applicantRnc, encf: t.encf, issueDate: t.issueDate, montoTotal: t.montoTotal, buyerRnc: t.buyerRnc, decision: 'accepted', rejectionReason: null, at: o.now },
      o.identity.key,
    ).xml;
    try {
      const answer = await post(base, 'aprobacioncomercial/api/ecf', xml, `${t.buyerRnc}${t.encf}.xml`, token);
      const problems = answer.status === 200 ? [] : [`HTTP ${answer.status}: ${answer.body.slice(0, 300)}`];
      documents.push({ encf: t.encf, ok: problems.length === 0, status: answer.status, problems, answer: answer.body.slice(0, 300) });
    } catch (e) {
      documents.push({ encf: t.encf, ok: false, status: null, problems: [`${base}/fe/aprobacioncomercial/api/ecf cannot be reached: ${(e as Error).message}`] });
    }
  }
  return report(base, o.now, auth, documents);
}

function report(url: string, at: Date, auth: { token: string } | { error: string }, documents: PlayerReport['documents']): PlayerReport {
  return {
    url,
    at: at.toISOString(),
    sent: documents.length,
    correct: documents.filter((d) => d.ok).length,
    authentication: 'token' in auth ? { ok: true, detail: 'seed signed and token granted' } : { ok: false, detail: auth.error },
    documents,
  };
}
