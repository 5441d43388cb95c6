/**
 * One error type for every way a call to the tax authority can fail.
 *
 * - `http`: the authority answered with a non-2xx status; `message` is the
 *   body collapsed to one line, whatever shape it had (NOTES §4.10).
 * - `timeout`: no complete answer within the client's timeout.
 * - `network`: the connection could not be made or was lost (refused, reset,
 *   closed before the answer, DNS, TLS).
 * - `protocol`: a 2xx answer the client cannot use (not JSON, no trackId, …).
 *
 * `transient` says that trying again later is reasonable: 5xx, 408, 429,
 * timeouts and connection errors. A 401 is not transient here: the token
 * cache renews the token and retries once (token-cache.ts).
 */

export type TaxauthErrorKind = 'http' | 'timeout' | 'network' | 'protocol';

/** Longest raw body kept on an error. */
const MAX_RAW_BODY = 64 * 1024;
/** Longest one-line message. */
const MAX_MESSAGE = 500;

export interface TaxauthErrorOptions {
  readonly status?: number | null;
  readonly rawBody?: string | null;
  /** The service called, e.g. `recepcion`, `validarsemilla`. */
  readonly operation?: string;
  readonly cause?: unknown;
}

export class TaxauthError extends Error {
  readonly kind: TaxauthErrorKind;
  readonly status: number | null;
  readonly rawBody: string | null;
  readonly transient: boolean;
  readonly operation: string | null;

  constructor(kind: TaxauthErrorKind, message: string, options: TaxauthErrorOptions = {}) {
    super(oneLine(message) || kind, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TaxauthError';
    this.kind = kind;
    this.status = options.status ?? null;
    const raw = options.rawBody ?? null;
    this.rawBody = raw !== null && raw.length > MAX_RAW_BODY ? raw.slice(0, MAX_RAW_BODY) : raw;
    this.operation = options.operation ?? null;
    this.transient = isTransient(kind, this.status);
  }

  /** The authority answered `status` with `body`: the error with the body collapsed into the message. */
  static fromResponse(status: number, body: string, contentType: string | null, operation: string): TaxauthError {
    const text = collapseErrorBody(body, contentType);
    return new TaxauthError('http', text || `HTTP ${status}`, { status, rawBody: body, operation });
  }

  /** A plain object for logs and stored attempts: never the raw body, which may be large. */
  toJSON(): { kind: TaxauthErrorKind; status: number | null; operation: string | null; transient: boolean; message: string } {
    return { kind: this.kind, status: this.status, operation: this.operation, transient: this.transient, message: this.message };
  }
}

/** Whether trying again later is reasonable (see above); also how a receiver's failures are read (reception/receiver-client.ts). */
export function isTransient(kind: TaxauthErrorKind, status: number | null): boolean {
  if (kind === 'timeout' || kind === 'network') return true;
  if (kind === 'http' && status !== null) return status >= 500 || status === 408 || status === 429;
  return false;
}

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
};

/**
 * An error body in any of the shapes the authority uses, as one line
 * (NOTES §4.10): a bare string, a JSON-encoded string served as text,
 * `{mensaje}` / `{message}` / `{error}`, `{mensajes: [{valor, codigo}]}` or
 * `mensajes` as plain strings, ASP.NET ProblemDetails or ModelState, an HTML
 * or XML page. '' when there is nothing to say.
 */
export function collapseErrorBody(body: string | null | undefined, contentType?: string | null): string {
  if (body === null || body === undefined) return '';
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1).trim() : body.trim();
  if (text === '') return '';
  if (/html/i.test(contentType ?? '') || /^<(?:!doctype\s+html|html[\s>])/i.test(text)) return oneLine(fromHtml(text));
  if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"')) {
    try {
      return oneLine(fromJson(JSON.parse(text) as unknown, 0));
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (text.startsWith('<')) return oneLine(fromMarkup(text));
  return oneLine(text);
}

function fromHtml(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const body = /<body[^>]*>([\s\S]*?)<\/body>/i.exec(html)?.[1] ?? html;
  const bodyText = fromMarkup(body.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' '));
  const titleText = title ? decodeEntities(title).replace(/\s+/g, ' ').trim() : '';
  if (titleText && bodyText && !bodyText.startsWith(titleText)) return `${titleText}: ${bodyText}`;
  return bodyText || titleText;
}

/** Text content of XML or HTML, tags dropped, entities decoded. */
function fromMarkup(markup: string): string {
  return decodeEntities(markup.replace(/<\?[\s\S]*?\?>/g, ' ').replace(/<!--[\s\S]*?-->/g, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos|nbsp);/gi, (whole, name: string) => {
    const n = name.toLowerCase();
    if (n.startsWith('#x')) return safeCodePoint(parseInt(n.slice(2), 16), whole);
    if (n.startsWith('#')) return safeCodePoint(parseInt(n.slice(1), 10), whole);
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[n] ?? whole;
  });
}

const safeCodePoint = (cp: number, fallback: string): string => {
  try {
    return String.fromCodePoint(cp);
  } catch {
    return fallback;
  }
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Looks up a key without regard to case: ASP.NET writes Mensaje, mensaje or MENSAJE. */
function field(obj: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    if (name in obj) return obj[name];
    const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key !== undefined) return obj[key];
  }
  return undefined;
}

function fromJson(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    // A JSON-encoded string served as text may hold JSON again.
    const inner = value.trim();
    if (depth < 2 && (inner.startsWith('{') || inner.startsWith('['))) {
      try {
        return fromJson(JSON.parse(inner) as unknown, depth + 1);
      } catch {
        return inner;
      }
    }
    return inner;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((v) => fromJson(v, depth + 1)).filter(Boolean).join('; ');
  if (!isRecord(value)) return '';

  const mensajes = field(value, 'mensajes', 'messages');
  if (mensajes !== undefined && mensajes !== null) {
    const list = (Array.isArray(mensajes) ? mensajes : [mensajes]).map(messageText).filter(Boolean);
    if (list.length) return list.join('; ');
  }
  const single = field(value, 'mensaje', 'message', 'valor', 'error_description');
  if (single !== undefined && single !== null && single !== '') {
    const text = Array.isArray(single) ? single.map((m) => fromJson(m, depth + 1)).filter(Boolean).join('; ') : fromJson(single, depth + 1);
    const error = field(value, 'error');
    if (typeof error === 'string' && error.trim() && error.trim() !== text) return `${error.trim()}: ${text}`;
    if (text) return text;
  }
  // ASP.NET ProblemDetails, with ModelState errors when it is a validation problem.
  const title = field(value, 'title');
  const detail = field(value, 'detail');
  const errors = field(value, 'errors');
  const problem = [typeof title === 'string' ? title.trim() : '', typeof detail === 'string' ? detail.trim() : ''].filter(Boolean).join(': ');
  const modelState = isRecord(errors) ? modelStateText(errors) : Array.isArray(errors) ? errors.map((e) => fromJson(e, depth + 1)).filter(Boolean).join('; ') : '';
  if (problem || modelState) return [problem, modelState].filter(Boolean).join(' ');
  const error = field(value, 'error');
  if (error !== undefined && error !== null && error !== '') return fromJson(error, depth + 1);
  // A bare ModelState: every value a list of strings.
  const entries = Object.entries(value);
  if (entries.length && entries.every(([, v]) => Array.isArray(v) && v.every((s) => typeof s === 'string'))) return modelStateText(value);
  return JSON.stringify(value);
}

function messageText(m: unknown): string {
  if (typeof m === 'string') return m.trim();
  if (!isRecord(m)) return m === null || m === undefined ? '' : String(m);
  const text = field(m, 'valor', 'mensaje', 'message', 'value', 'descripcion');
  const code = field(m, 'codigo', 'code');
  const t = typeof text === 'string' ? text.trim() : text === undefined || text === null ? '' : JSON.stringify(text);
  const c = code === undefined || code === null || code === '' ? '' : String(code).trim();
  return c && t ? `${c}: ${t}` : t || c;
}

function modelStateText(errors: Record<string, unknown>): string {
  return Object.entries(errors)
    .map(([key, list]) => {
      const texts = (Array.isArray(list) ? list : [list]).map((x) => (typeof x === 'string' ? x : messageText(x))).filter(Boolean);
      if (!texts.length) return '';
      return key && key !== '$' && key !== '' ? `${key}: ${texts.join(', ')}` : texts.join(', ');
    })
    .filter(Boolean)
    .join('; ');
}

/** The text with the token taken out; the token must not travel in errors. */
export function redactToken(value: string, token: string | undefined): string {
  return token && token.length >= 4 ? value.split(token).join('[token]') : value;
}

/** A thrown error in one line: its code, message and cause. */
export function describeCause(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  const cause = (e as { cause?: unknown }).cause;
  const causeText = cause instanceof Error && cause.message && cause.message !== e.message ? ` (${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${e.message}${causeText}`;
}

