import type { Dispatcher } from 'undici';
import { undici } from '../net/undici.js';
import { DEFAULT_TLS, explainTlsFailure, isTlsFailure, tlsCause, type TaxauthTls } from './tls.js';
import { TaxauthError, collapseErrorBody, decodeEntities, describeCause, redactToken } from './errors.js';
import { observeTaxauthCall } from './call-listeners.js';
import {
  STATUS_TEXT,
  asList,
  authorityInstant,
  bool,
  isRecord,
  messages,
  parseAuthorityDate,
  pick,
  text,
  tryJson,
  annulmentAnswer,
  verdictCode,
} from './parse.js';
import { multipartBody, toBuffer, uploadName } from './upload.js';
import { taxauthAgent } from './agent.js';
import type {
  AnnulmentAnswer,
  ApprovalVerdict,
  DirectoryEntry,
  EcfStatus,
  EcfUpload,
  ResultVerdict,
  RfceVerdict,
  StatusQuery,
  TokenGrant,
  TrackIdEntry,
  VerdictCode,
} from './types.js';

/**
 * HTTP client of the tax authority's web services (NOTES §2–4). One method
 * per service; each throws a TaxauthError on any failure (errors.ts).
 *
 * Uploads are multipart/form-data with one part named `xml` (type text/xml,
 * file name `{RNC}{eNCF}.xml`), built here as one Buffer so the request
 * carries a real Content-Length (the authority answers "Multipart cannot be
 * empty" to chunked uploads, NOTES §3.1). Every call asks for JSON.
 *
 * The bearer token goes in the Authorization header and nowhere else: it is
 * removed from any error text before the error leaves this module.
 */

export interface TaxauthClientOptions {
  /** Main host and environment, e.g. https://ecf.dgii.gov.do/testecf */
  readonly baseUrl: string;
  /** fc host and environment, e.g. https://fc.dgii.gov.do/testecf */
  readonly fcUrl: string;
  /** Whole-call limit: connect, headers and body. */
  readonly timeoutMs: number;
  /** undici dispatcher; by default the shared Agent with the default TLS options (TLS 1.2 or later, Node's ciphers). */
  readonly dispatcher?: Dispatcher;
  /** The TLS options the dispatcher was built with, to name the setting when a handshake fails. */
  readonly tls?: TaxauthTls;
}

const PATHS = {
  seed: 'autenticacion/api/autenticacion/semilla',
  validateSeed: 'autenticacion/api/autenticacion/validarsemilla',
  reception: 'recepcion/api/facturaselectronicas',
  rfceReception: 'recepcionfc/api/recepcion/ecf',
  result: 'consultaresultado/api/consultas/estado',
  trackIds: 'consultatrackids/api/trackids/consulta',
  status: 'consultaestado/api/consultas/estado',
  annulment: 'anulacionrangos/api/operaciones/anularrango',
  commercialApproval: 'aprobacioncomercial/api/aprobacioncomercial',
  directory: 'consultadirectorio/api/consultas/obtenerdirectorioporrnc',
} as const;

/** Lifetime the authority documents for a token, used when its answer has no readable dates (NOTES §2). */
const DOCUMENTED_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
}

interface CallOptions {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly token?: string;
  readonly accept?: string;
  readonly upload?: { readonly fileName: string; readonly xml: Buffer | string };
}

export class TaxauthClient {
  readonly baseUrl: string;
  readonly fcUrl: string;
  readonly timeoutMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #tls: TaxauthTls;

  constructor(options: TaxauthClientOptions) {
    this.#tls = options.tls ?? DEFAULT_TLS;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fcUrl = options.fcUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.#dispatcher = options.dispatcher ?? taxauthAgent();
  }

  /** The seed document (NOTES §2 step 1) as the authority sent it. */
  async seed(): Promise<string> {
    const op = 'semilla';
    const answer = await this.#call(op, { method: 'GET', url: `${this.baseUrl}/${PATHS.seed}`, accept: 'application/xml, text/xml;q=0.9, application/json;q=0.5' });
    const body = answer.body.charCodeAt(0) === 0xfeff ? answer.body.slice(1) : answer.body;
    if (/<SemillaModel[\s>]/.test(body)) return body;
    // An authority that honoured a JSON Accept would answer {valor, fecha}: write it as the .NET document it stands for.
    const json = tryJson(body);
    if (isRecord(json)) {
      const valor = text(pick(json, 'valor'));
      const fecha = text(pick(json, 'fecha'));
      if (valor && fecha) {
        return `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>${escapeXml(valor)}</valor><fecha>${escapeXml(fecha)}</fecha></SemillaModel>`;
      }
    }
    throw protocol(op, 'the answer is not a SemillaModel document', answer);
  }

  /** Exchanges the signed seed for a bearer token (NOTES §2 step 3). */
  async validateSeed(signedSeedXml: string | Buffer): Promise<TokenGrant> {
    const op = 'validarsemilla';
    const answer = await this.#call(op, { method: 'POST', url: `${this.baseUrl}/${PATHS.validateSeed}`, upload: { fileName: 'semilla.xml', xml: signedSeedXml } });
    let fields: { token: unknown; expira: unknown; expedido: unknown } | null = null;
    const json = tryJson(answer.body);
    if (isRecord(json)) {
      fields = { token: pick(json, 'token'), expira: pick(json, 'expira'), expedido: pick(json, 'expedido') };
    } else if (answer.body.trimStart().startsWith('<')) {
      const tag = (name: string) => {
        const m = new RegExp(`<${name}>([^<]*)</${name}>`, 'i').exec(answer.body);
        return m ? decodeEntities(m[1]!) : undefined;
      };
      fields = { token: tag('token'), expira: tag('expira'), expedido: tag('expedido') };
    }
    const token = fields ? text(fields.token) : null;
    // Never echo a body that may hold a token into the error.
    if (!token) throw new TaxauthError('protocol', 'validarsemilla answered without a token', { status: answer.status, operation: op });
    const issuedAt = parseAuthorityDate(fields!.expedido) ?? new Date();
    let expiresAt = parseAuthorityDate(fields!.expira);
    if (!expiresAt || expiresAt.getTime() <= issuedAt.getTime()) expiresAt = new Date(issuedAt.getTime() + DOCUMENTED_TOKEN_LIFETIME_MS);
    return { token, expiresAt, issuedAt };
  }

  /** Sends a signed e-CF (NOTES §4.1); the verdict comes later, by trackId. */
  async sendEcf(token: string, upload: EcfUpload): Promise<{ trackId: string }> {
    const op = 'recepcion';
    const { answer, json } = await this.#postUpload(op, `${this.baseUrl}/${PATHS.reception}`, token, upload);
    const trackId = text(pick(json, 'trackId', 'trackid'));
    if (!trackId) {
      const said = collapseErrorBody(answer.body, answer.contentType);
      throw protocol(op, said ? `no trackId in the answer: ${redactToken(said, token)}` : 'no trackId in the answer', answer, token);
    }
    return { trackId };
  }

  /** Sends a signed RFCE to the fc host (NOTES §4.3, §9); the verdict is in the answer. */
  async sendRfce(token: string, upload: EcfUpload): Promise<RfceVerdict> {
    const op = 'recepcionfc';
    const { answer, json } = await this.#postUpload(op, `${this.fcUrl}/${PATHS.rfceReception}`, token, upload);
    return {
      ...verdictOf(op, json, answer, token),
      sequenceUsed: bool(pick(json, 'secuenciaUtilizada')),
      messages: messages(pick(json, 'mensajes')),
      encf: text(pick(json, 'encf', 'eNCF')),
    };
  }

  /** The verdict on a submission (consultaresultado, NOTES §4.2). */
  async result(token: string, trackId: string): Promise<ResultVerdict> {
    const op = 'consultaresultado';
    const answer = await this.#call(op, { method: 'GET', url: `${this.baseUrl}/${PATHS.result}?${query({ trackid: trackId })}`, token });
    const obj = this.#object(op, answer, token);
    return {
      trackId: text(pick(obj, 'trackId', 'trackid')) ?? trackId,
      ...verdictOf(op, obj, answer, token),
      sequenceUsed: bool(pick(obj, 'secuenciaUtilizada')),
      messages: messages(pick(obj, 'mensajes')),
      receivedAt: authorityInstant(pick(obj, 'fechaRecepcion')),
    };
  }

  /** Every submission of an e-NCF, oldest first (consultatrackids, NOTES §4.6). */
  async trackIds(token: string, rnc: string, encf: string): Promise<TrackIdEntry[]> {
    const op = 'consultatrackids';
    const answer = await this.#call(op, { method: 'GET', url: `${this.baseUrl}/${PATHS.trackIds}?${query({ rncemisor: rnc, encf })}`, token });
    const json = this.#json(op, answer, token);
    const out: TrackIdEntry[] = [];
    for (const entry of asList(json)) {
      if (!isRecord(entry)) continue;
      const trackId = text(pick(entry, 'trackId', 'trackid'));
      if (!trackId) continue;
      out.push({ trackId, status: text(pick(entry, 'estado')) ?? '', receivedAt: authorityInstant(pick(entry, 'fechaRecepcion')) });
    }
    return out;
  }

  /** The standing of an e-CF by issuer and e-NCF (consultaestado, NOTES §4.4). */
  async status(token: string, q: StatusQuery): Promise<EcfStatus> {
    const op = 'consultaestado';
    const params: Record<string, string> = { rncemisor: q.rnc, ncfelectronico: q.encf };
    if (q.buyerRnc) params.rnccomprador = q.buyerRnc;
    if (q.securityCode) params.codigoseguridad = q.securityCode;
    const answer = await this.#call(op, { method: 'GET', url: `${this.baseUrl}/${PATHS.status}?${query(params)}`, token });
    const obj = this.#object(op, answer, token);
    return {
      ...verdictOf(op, obj, answer, token),
      issuerRnc: text(pick(obj, 'rncEmisor')),
      encf: text(pick(obj, 'ncfElectronico', 'encf')),
      totalAmount: text(pick(obj, 'montoTotal')),
      totalItbis: text(pick(obj, 'totalITBIS')),
      issuedOn: text(pick(obj, 'fechaEmision')),
      signedAt: text(pick(obj, 'fechaFirma')),
      buyerRnc: text(pick(obj, 'rncComprador')),
      securityCode: text(pick(obj, 'codigoSeguridad')),
      foreignId: text(pick(obj, 'idExtranjero')),
    };
  }

  /**
   * Sends a signed ANECF (NOTES §11, §4.8). The upload is named after the
   * issuer and the first e-NCF it annuls, `{RNC}{eNCF}.xml`, like every other
   * upload: the authority names no rule for this one. Any 2xx answer comes
   * back as it is; whether it says the numbers were annulled is the caller's
   * to judge. A refusal with a 4xx status is a TaxauthError whose `rawBody`
   * `annulmentAnswer` reads.
   */
  async annulRanges(token: string, upload: EcfUpload): Promise<AnnulmentAnswer> {
    const op = 'anulacionrangos';
    const { answer, json } = await this.#postUpload(op, `${this.baseUrl}/${PATHS.annulment}`, token, upload);
    const read = annulmentAnswer(json);
    if (!read) throw protocol(op, 'the answer has no codigo, nombre or mensajes', answer, token);
    return read;
  }

  /**
   * Sends the buyer's signed ACECF (NOTES §4.7), named `{RNCComprador}{eNCF}.xml`
   * (`upload.rnc` is the buyer's RNC). Code 1: recorded; 2: refused.
   */
  async sendCommercialApproval(token: string, upload: EcfUpload): Promise<ApprovalVerdict> {
    const op = 'aprobacioncomercial';
    const { answer, json } = await this.#postUpload(op, `${this.baseUrl}/${PATHS.commercialApproval}`, token, upload);
    const status = text(pick(json, 'estado')) ?? '';
    const rawCode = text(pick(json, 'codigo'));
    const code = rawCode !== null && /^\d+$/.test(rawCode) ? Number(rawCode) : /rechazad/i.test(status) ? 2 : /aprobad/i.test(status) ? 1 : null;
    if (code === null) throw protocol(op, 'the answer has no codigo or estado the client knows', answer, token);
    const said = pick(json, 'mensaje', 'mensajes');
    const list = Array.isArray(said) ? said : said === undefined || said === null ? [] : [said];
    return { code, status, messages: list.map((m) => (typeof m === 'string' ? m : (text(isRecord(m) ? pick(m, 'valor', 'mensaje') : m) ?? JSON.stringify(m)))) };
  }

  /**
   * The directory entry of an electronic taxpayer by RNC (NOTES §4.9): the
   * base URLs of its receiver. null when the RNC is not in the directory.
   */
  async directory(token: string, rnc: string): Promise<DirectoryEntry | null> {
    const op = 'consultadirectorio';
    const answer = await this.#call(op, { method: 'GET', url: `${this.baseUrl}/${PATHS.directory}?${query({ RNC: rnc })}`, token });
    const json = tryJson(answer.body);
    if (json === undefined || json === null) return null;
    for (const entry of asList(json)) {
      if (!isRecord(entry)) continue;
      const entryRnc = text(pick(entry, 'rnc'));
      if (entryRnc !== null && entryRnc !== rnc) continue;
      return {
        rnc,
        name: text(pick(entry, 'nombre')),
        receptionUrl: text(pick(entry, 'urlRecepcion')),
        approvalUrl: text(pick(entry, 'urlAceptacion')),
        authenticationUrl: text(pick(entry, 'urlOpcional')),
      };
    }
    return null;
  }

  /** Every signed-document service answers an upload with one JSON object; anything else is a protocol error. */
  async #postUpload(op: string, url: string, token: string, upload: EcfUpload): Promise<{ answer: Answer; json: Record<string, unknown> }> {
    const answer = await this.#call(op, { method: 'POST', url, token, upload: { fileName: uploadName(upload), xml: upload.xml } });
    const json = this.#json(op, answer, token);
    if (!isRecord(json)) throw protocol(op, 'the answer is not a JSON object', answer, token);
    return { answer, json };
  }

  #json(op: string, answer: Answer, token?: string): unknown {
    const json = tryJson(answer.body);
    if (json === undefined) throw protocol(op, 'the answer is not JSON', answer, token);
    return json;
  }

  /** The one object a query answers with; some hosts wrap it in a list. */
  #object(op: string, answer: Answer, token: string): Record<string, unknown> {
    const json = this.#json(op, answer, token);
    const obj = Array.isArray(json) ? json[0] : json;
    if (!isRecord(obj)) throw protocol(op, 'the answer is not a JSON object', answer, token);
    return obj;
  }

  /** One request; a non-2xx answer, a timeout or a connection failure becomes a TaxauthError. */
  /** Every call, observed by the metrics' port (in flight, latency, outcome) when an app listens. */
  #call(op: string, options: CallOptions): Promise<Answer> {
    return observeTaxauthCall(op, () => this.#send(op, options));
  }

  async #send(op: string, options: CallOptions): Promise<Answer> {
    const headers: Record<string, string> = {
      accept: options.accept ?? 'application/json',
      'user-agent': 'ecf-appliance',
    };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: Buffer | undefined;
    if (options.upload) {
      const multipart = multipartBody('xml', options.upload.fileName, 'text/xml', toBuffer(options.upload.xml));
      body = multipart.body;
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(body.length);
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    try {
      const response = await undici().request(options.url, {
        method: options.method,
        headers,
        body,
        dispatcher: this.#dispatcher,
        signal: controller.signal,
        // The whole-call timer above is the limit; these only keep undici from giving up first.
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
      });
      const text = await response.body.text();
      const contentType = headerValue(response.headers['content-type']);
      const answer: Answer = { status: response.statusCode, body: text, contentType };
      if (response.statusCode < 200 || response.statusCode > 299) {
        const error = TaxauthError.fromResponse(response.statusCode, redactToken(text, options.token), contentType, op);
        throw error;
      }
      return answer;
    } catch (e) {
      if (e instanceof TaxauthError) throw e;
      if (timedOut) {
        throw new TaxauthError('timeout', `No answer from the tax authority (${op}) within ${this.timeoutMs} ms.`, { operation: op });
      }
      const code = (e as { code?: unknown }).code;
      if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        throw new TaxauthError('timeout', `No answer from the tax authority (${op}): ${describeCause(e)}`, { operation: op });
      }
      const why = isTlsFailure(e) ? explainTlsFailure(tlsCause(e), this.#tls) : describeCause(e);
      throw new TaxauthError('network', redactToken(`Could not reach the tax authority (${op}): ${why}`, options.token), { operation: op });
    } finally {
      clearTimeout(timer);
    }
  }
}

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

const headerValue = (v: string | string[] | undefined): string | null => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

/** The code and status text of a verdict: `codigo`, `estado` or both. */
function verdictOf(op: string, obj: Record<string, unknown>, answer: Answer, token: string): { code: VerdictCode; status: string } {
  const said = text(pick(obj, 'estado'));
  const code = verdictCode(pick(obj, 'codigo'), said);
  if (code === null) throw protocol(op, 'the answer has no codigo or estado the client knows', answer, token);
  return { code, status: said ?? STATUS_TEXT[code] };
}

function protocol(op: string, what: string, answer: Answer, token?: string): TaxauthError {
  return new TaxauthError('protocol', `Unexpected answer from the tax authority (${op}): ${what}.`, {
    status: answer.status,
    rawBody: redactToken(answer.body, token),
    operation: op,
  });
}

const escapeXml = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
