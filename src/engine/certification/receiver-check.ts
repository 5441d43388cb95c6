import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { undici } from '../net/undici.js';
import { dominicanDate } from '../clock.js';
import { signEcf } from '../documents/sign-ecf.js';
import { prepareDocument } from '../documents/prepare.js';
import type { Engine } from '../engine-types.js';
import { ValidationError } from '../errors.js';
import { signAcecf } from '../reception/documents.js';
import { parseXml, textOf, verifySignature } from '../signing/verify.js';
import { signingKey, type SigningKey } from '../signing/xmldsig.js';
import { multipartBody } from '../taxauth/upload.js';
import { signSeed } from '../taxauth/token-cache.js';

/**
 * Pasos 7–11 (CERTIFICATION.md §4.3): before the person types the receiver's
 * URLs in the portal, call them as the authority will, from outside, with a
 * certificate of nobody's (a throwaway, made for the run): seed, token,
 * an e-CF and an approval. The e-CF is addressed to another buyer, so a
 * correct receiver answers "not received, RNC Comprador no corresponde"
 * (motivo 4) and never takes it into the inbox as a document to act on;
 * the approval names an e-NCF nobody issued, so a correct receiver refuses
 * it (HTTP 400, NOTES §10.1) and records nothing.
 */

/** The fixed suffixes the portal appends to what the person types (§1.2, §4.3). */
export const RECEIVER_SUFFIXES = {
  recepcion: '/fe/recepcion/api/ecf',
  aprobacionComercial: '/fe/aprobacioncomercial/api/ecf',
  semilla: '/fe/autenticacion/api/semilla',
  validacionCertificado: '/fe/autenticacion/api/validacioncertificado',
} as const;

/**
 * The probe's made-up issuer and buyer: RNCs no taxpayer has (all zeros but
 * the last digit), so its refusal is recognisable wherever it lands, and the
 * arrivals report leaves it out.
 */
export const PROBE_ISSUER_RNC = '000000001';
export const PROBE_BUYER_RNC = '000000002';
export const PROBE_ENCF = 'E310000000001';
export const PROBE_APPROVAL_ENCF = 'E319999999999';
const PROBE_NAME = 'SONDA ecf certify receiver';

export interface ReceiverUrls {
  /** What to type in the portal's boxes: host and prefix, no scheme (the portal shows `https://`). */
  readonly typed: string;
  readonly base: string;
  readonly recepcion: string;
  readonly aprobacionComercial: string;
  readonly semilla: string;
  readonly validacionCertificado: string;
}

/** The URLs from what the person passed: `https://host[:port][/prefix]`, with no query or fragment. */
export function receiverUrls(input: string): ReceiverUrls {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ValidationError([{ path: 'url', code: 'Receiver.UrlInvalid', message: `--url ${input} is not a URL; write it as https://host[/prefix].` }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ValidationError([{ path: 'url', code: 'Receiver.UrlInvalid', message: `--url must start with https:// (the portal only takes https), not ${url.protocol}//.` }]);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ValidationError([{ path: 'url', code: 'Receiver.UrlInvalid', message: '--url takes host and path prefix only: no query, fragment or credentials.' }]);
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  if (/\/fe(\/|$)/i.test(prefix)) {
    throw new ValidationError([{ path: 'url', code: 'Receiver.UrlInvalid', message: `--url must stop before /fe/: the portal appends ${RECEIVER_SUFFIXES.recepcion} and the others itself.` }]);
  }
  const base = `${url.protocol}//${url.host}${prefix}`;
  return {
    typed: `${url.host}${prefix}`,
    base,
    recepcion: base + RECEIVER_SUFFIXES.recepcion,
    aprobacionComercial: base + RECEIVER_SUFFIXES.aprobacionComercial,
    semilla: base + RECEIVER_SUFFIXES.semilla,
    validacionCertificado: base + RECEIVER_SUFFIXES.validacionCertificado,
  };
}

export interface CheckResult {
  readonly name: 'semilla' | 'validacioncertificado' | 'recepcion' | 'aprobacioncomercial';
  readonly url: string;
  readonly ok: boolean;
  readonly expected: string;
  readonly got: string;
  /** Extra facts for the report (token expiry, ARECF fields). */
  readonly detail?: Record<string, unknown>;
}

export interface ReceiverCheck {
  readonly urls: ReceiverUrls;
  /** false when --url is http:// (checked, but the portal will not take it). */
  readonly https: boolean;
  readonly ok: boolean;
  readonly checks: readonly CheckResult[];
  /** What a failure most likely means, when the answers show it; null otherwise. */
  readonly hint: string | null;
}

/** A key and a self-signed certificate that belong to no one, valid around `now`. */
export function throwawayIdentity(now: Date): { key: SigningKey; certificatePem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const fkey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(now.getTime() - 86_400_000);
  cert.validity.notAfter = new Date(now.getTime() + 2 * 86_400_000);
  const subject = [{ name: 'commonName', value: PROBE_NAME }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(fkey, forge.md.sha256.create());
  const certificatePem = forge.pki.certificateToPem(cert);
  return { key: signingKey(privateKey, new X509Certificate(certificatePem)), certificatePem };
}

/** The probe e-CF: type 31 from the made-up issuer to the made-up buyer, signed with the throwaway key. */
export function probeEcf(key: SigningKey, now: Date): string {
  const outcome = prepareDocument(
    {
      type: 31,
      incomeType: '01',
      payment: { condition: '1' },
      buyer: { rnc: PROBE_BUYER_RNC, name: 'Comprador inexistente (prueba de receptor)' },
      lines: [{ name: 'Prueba de receptor: no es una venta', quantity: 1, unitPrice: '1.00' }],
    },
    { sequenceMode: 'managed', today: dominicanDate(now) },
  );
  if (!outcome.document) throw new Error(`the probe e-CF is invalid: ${outcome.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return signEcf({
    document: outcome.document,
    computed: outcome.document.computed,
    issuer: { rnc: PROBE_ISSUER_RNC, legalName: PROBE_NAME, tradeName: null, address: 'Sin dirección', municipality: '010100', province: '010000', phones: [], email: null, economicActivity: null },
    numbering: { encf: PROBE_ENCF, sequenceExpiresOn: '2030-12-31' },
    key,
    environment: 'cert',
    now,
  }).xml;
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const TIMEOUT_MS = 20_000;

async function call(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: Buffer }): Promise<Answer | { error: string }> {
  try {
    const res = await undici().request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, body: init.body ?? null, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    const ct = res.headers['content-type'];
    return { status: res.statusCode, contentType: (Array.isArray(ct) ? ct[0] : ct) ?? '', body: await res.body.text() };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
    return { error: [err.code, err.cause?.code, err.cause?.message ?? err.message].filter(Boolean).join(': ') };
  }
}

const post = (url: string, fileName: string, xml: string, headers: Record<string, string> = {}) => {
  const form = multipartBody('xml', fileName, 'text/xml', Buffer.from(xml, 'utf8'));
  return call(url, { method: 'POST', headers: { ...headers, 'content-type': form.contentType, 'content-length': String(form.body.length) }, body: form.body });
};

const short = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}…` : text).replace(/\s+/g, ' ').trim();
const describe = (a: Answer | { error: string }) => ('error' in a ? `no answer (${a.error})` : `HTTP ${a.status} ${a.contentType || '(no content type)'}: ${short(a.body) || '(empty body)'}`);

/**
 * Runs the four checks in the order the authority makes its calls. A step
 * that cannot run because an earlier one failed (no seed, no token) still
 * runs without what it lacked, so the report shows every route's answer.
 */
export async function checkReceiver(options: { url: string; tenantRnc: string; tenantId?: string; now: Date }): Promise<ReceiverCheck> {
  const urls = receiverUrls(options.url);
  const { now, tenantRnc } = options;
  const identity = throwawayIdentity(now);
  const checks: CheckResult[] = [];

  // 1. The seed.
  const seed = await call(urls.semilla, { headers: { accept: 'application/xml' } });
  const seedXml = 'error' in seed ? null : seed.body;
  const seedOk = !('error' in seed) && seed.status === 200 && /<SemillaModel\b[^]*<valor>[^<]+<\/valor>/.test(seed.body);
  checks.push({ name: 'semilla', url: urls.semilla, ok: seedOk, expected: 'HTTP 200 with a SemillaModel XML holding a valor', got: describe(seed) });

  // 2. The token for the seed signed with a certificate nobody registered (as the authority's is, to this receiver).
  let token: string | null = null;
  if (seedOk && seedXml) {
    let signed: string;
    try {
      signed = signSeed(seedXml, identity.key);
    } catch (e) {
      signed = '';
      checks.push({ name: 'validacioncertificado', url: urls.validacionCertificado, ok: false, expected: 'a seed that can be signed', got: `the seed could not be signed: ${(e as Error).message}` });
    }
    if (signed) {
      const grant = await post(urls.validacionCertificado, 'semilla.xml', signed, { accept: 'application/json' });
      let expira: string | null = null;
      if (!('error' in grant) && grant.status === 200) {
        try {
          const json = JSON.parse(grant.body) as { token?: unknown; expira?: unknown };
          if (typeof json.token === 'string' && json.token) [token, expira] = [json.token, typeof json.expira === 'string' ? json.expira : null];
        } catch {
          // not JSON: reported below
        }
      }
      checks.push({
        name: 'validacioncertificado',
        url: urls.validacionCertificado,
        ok: token !== null,
        expected: 'HTTP 200 with JSON {token, expira, expedido} for the seed signed with any valid certificate',
        got: token ? `HTTP 200, a token${expira ? ` that expires ${expira}` : ''}` : describe(grant),
        ...(expira && { detail: { expira } }),
      });
    }
  } else {
    checks.push({ name: 'validacioncertificado', url: urls.validacionCertificado, ok: false, expected: 'a token for the signed seed', got: 'not tried: there was no seed' });
  }
  const bearer: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

  // 3. An e-CF for another buyer: must be answered with a signed ARECF, Estado 1, motivo 4.
  const ecf = await post(urls.recepcion, `${PROBE_ISSUER_RNC}${PROBE_ENCF}.xml`, probeEcf(identity.key, now), bearer);
  checks.push(judgeArecf(urls.recepcion, ecf, tenantRnc, now));

  // 4. An approval over an e-NCF the tenant never issued: refused, 400.
  const acecf = signAcecf(
    { issuerRnc: tenantRnc, encf: PROBE_APPROVAL_ENCF, issueDate: '01-01-2020', montoTotal: '1.00', buyerRnc: PROBE_BUYER_RNC, decision: 'accepted', rejectionReason: null, at: now },
    identity.key,
  ).xml;
  const approval = await post(urls.aprobacionComercial, `${tenantRnc}${PROBE_APPROVAL_ENCF}.xml`, acecf, bearer);
  checks.push({
    name: 'aprobacioncomercial',
    url: urls.aprobacionComercial,
    ok: !('error' in approval) && approval.status === 400,
    expected: `HTTP 400 (not satisfactory, NOTES §10.1): ${PROBE_APPROVAL_ENCF} was never issued by ${tenantRnc}`,
    got: describe(approval),
  });

  const hint = notFoundHint([seed, ecf, approval], urls.base, options.tenantId);
  return { urls, https: urls.base.startsWith('https:'), ok: checks.every((c) => c.ok), checks, hint };
}

/**
 * Every route answering 404 is nearly always a URL without the tenant's id:
 * the receiver's routes are /{tenantId}/fe/..., and the bare /fe/... paths
 * exist only behind a proxy that adds the id.
 */
function notFoundHint(answers: readonly (Answer | { error: string })[], base: string, tenantId: string | undefined): string | null {
  if (!answers.every((a) => !('error' in a) && a.status === 404)) return null;
  const id = tenantId ?? '<tenant id>';
  if (tenantId && new URL(base).pathname.split('/').includes(tenantId)) {
    return `Every route answered 404 although the URL names this tenant's id (${tenantId}): check that the server at ${new URL(base).host} is this appliance's \`ecf serve\`, or what the proxy in front of it forwards.`;
  }
  return `Every route answered 404: a tenant's receiver routes are /{tenantId}/fe/..., so the URL must end with the tenant's id (${base}/${id}), unless a proxy in front adds it (rewrite /fe/ to /${id}/fe/; see docs/certification.md). \`ecf tenant show\` gives the id.`;
}

function judgeArecf(url: string, answer: Answer | { error: string }, tenantRnc: string, now: Date): CheckResult {
  const expected = `HTTP 200 with an ARECF signed by the receiver: Estado 1 (no recibido), CodigoMotivoNoRecibido 4 (RNC Comprador no corresponde), RNCComprador ${tenantRnc}`;
  if ('error' in answer || answer.status !== 200) return { name: 'recepcion', url, ok: false, expected, got: describe(answer) };
  const parsed = parseXml(answer.body);
  if (!parsed.ok || parsed.root.localName !== 'ARECF') return { name: 'recepcion', url, ok: false, expected, got: `HTTP 200 but not an ARECF: ${short(answer.body)}` };
  const fields = {
    rncEmisor: textOf(parsed.root, 'RNCEmisor'),
    rncComprador: textOf(parsed.root, 'RNCComprador'),
    encf: textOf(parsed.root, 'eNCF'),
    estado: textOf(parsed.root, 'Estado'),
    codigoMotivoNoRecibido: textOf(parsed.root, 'CodigoMotivoNoRecibido'),
  };
  const signature = verifySignature(answer.body, parsed, now);
  const problems: string[] = [];
  if (!signature.ok) problems.push(`its signature does not verify (${signature.reason})`);
  if (fields.estado !== '1') problems.push(`Estado ${fields.estado ?? '(none)'}`);
  if (fields.codigoMotivoNoRecibido !== '4') problems.push(`CodigoMotivoNoRecibido ${fields.codigoMotivoNoRecibido ?? '(none)'}`);
  if (fields.rncComprador !== tenantRnc) problems.push(`RNCComprador ${fields.rncComprador ?? '(none)'}: this URL answers for another taxpayer`);
  if (fields.encf !== PROBE_ENCF || fields.rncEmisor !== PROBE_ISSUER_RNC) problems.push('it names another e-CF than the one sent');
  const got = `HTTP 200, ARECF Estado ${fields.estado ?? '-'}, motivo ${fields.codigoMotivoNoRecibido ?? '-'}, RNCComprador ${fields.rncComprador ?? '-'}, signature ${signature.ok ? `valid (${signature.certificate.subject.replace(/\n/g, ', ')})` : 'not valid'}`;
  return {
    name: 'recepcion',
    url,
    ok: problems.length === 0,
    expected,
    got: problems.length ? `${got}; wrong: ${problems.join('; ')}` : got,
    detail: { ...fields, signatureValid: signature.ok },
  };
}

/**
 * What the probe left in this store, when the URL is served from it: the
 * receiver keeps every e-CF it answers, a refused one as a `not_received`
 * row with its reason (receive.ts), so the e-CF check leaves one refusal per
 * run; the refused approval leaves nothing.
 */
export async function probeTraces(engine: Engine, tenantId: string, since: string): Promise<{ refusals: number; approvals: number }> {
  const refusals = await engine.db
    .selectFrom('received_ecf')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('issuer_rnc', '=', PROBE_ISSUER_RNC)
    .where('received_at', '>=', since)
    .executeTakeFirstOrThrow();
  const approvals = await engine.db
    .selectFrom('inbound_approvals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('encf', '=', PROBE_APPROVAL_ENCF)
    .executeTakeFirstOrThrow();
  return { refusals: Number(refusals.n), approvals: Number(approvals.n) };
}
