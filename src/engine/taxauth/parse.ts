import { toDominicanIso } from '../clock.js';
import type { AnnulmentAnswer, TaxauthMessage, VerdictCode } from './types.js';

/**
 * Defensive readers for the authority's answers (NOTES §4.2, §4.9): codes
 * that come as numbers or strings, booleans as strings, one object where a
 * list was documented, keys in any case, and dates in ISO or US style.
 */

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of the first of `names` present, comparing keys without regard to case. */
export function pick(obj: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    if (Object.hasOwn(obj, name)) return obj[name];
  }
  const lower = names.map((n) => n.toLowerCase());
  for (const key of Object.keys(obj)) {
    if (lower.includes(key.toLowerCase())) return obj[key];
  }
  return undefined;
}

/** A list, whether the authority sent a list, one object, or nothing. */
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v]);

export function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** An integer from a number or a numeric string; null otherwise. */
export function integer(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return null;
}

export function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
  }
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : null;
  return null;
}

/** The verdict code of a status text, for answers that carry the text only. */
export function codeOfStatus(status: string | null): VerdictCode | null {
  if (!status) return null;
  const s = status
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  if (s.includes('condicional')) return 4;
  if (s.includes('no encontrado')) return 0;
  if (s.includes('rechazad')) return 2;
  if (s.includes('proceso')) return 3;
  if (s.includes('aceptad')) return 1;
  return null;
}

export function verdictCode(codigo: unknown, status: string | null): VerdictCode | null {
  const n = integer(codigo);
  if (n !== null && n >= 0 && n <= 4) return n as VerdictCode;
  return codeOfStatus(status);
}

export const STATUS_TEXT: Record<VerdictCode, string> = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
};

/** `mensajes` in any of its shapes: [{valor, codigo}], one such object, or plain strings. */
export function messages(v: unknown): TaxauthMessage[] {
  const out: TaxauthMessage[] = [];
  for (const m of asList(v)) {
    if (typeof m === 'string') {
      if (m.trim()) out.push({ code: 0, value: m.trim() });
    } else if (isRecord(m)) {
      const value = text(pick(m, 'valor', 'mensaje', 'message', 'value', 'descripcion')) ?? '';
      const code = integer(pick(m, 'codigo', 'code')) ?? 0;
      if (value || code) out.push({ code, value });
    }
  }
  return out;
}

const DOMINICAN_OFFSET = '-04:00';

/**
 * An instant the authority wrote, read as well as it can be: ISO 8601 (a
 * missing offset means Dominican time; .NET's seven fractional digits are
 * fine), US style `8/15/2023 6:06:57 AM`, or `dd-MM-yyyy HH:mm:ss`; the last
 * two in Dominican time, where the authority is. null when unreadable.
 */
export function parseAuthorityDate(value: unknown): Date | null {
  const raw = text(value);
  if (!raw) return null;
  let m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(raw);
  if (m) {
    const ms = (m[4] ?? '').padEnd(3, '0').slice(0, 3);
    const zone = m[5] ? (m[5].toUpperCase() === 'Z' ? 'Z' : m[5].length === 5 ? `${m[5].slice(0, 3)}:${m[5].slice(3)}` : m[5]) : DOMINICAN_OFFSET;
    return valid(new Date(`${m[1]}T${m[2]}:${m[3] ?? '00'}.${ms}${zone}`));
  }
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AP]\.?M\.?)?)?$/i.exec(raw);
  if (m) {
    let hour = Number(m[4] ?? 0);
    const meridiem = m[7]?.replace(/\./g, '').toUpperCase();
    if (meridiem === 'PM' && hour < 12) hour += 12;
    if (meridiem === 'AM' && hour === 12) hour = 0;
    return local(Number(m[3]), Number(m[1]), Number(m[2]), hour, Number(m[5] ?? 0), Number(m[6] ?? 0));
  }
  m = /^(\d{2})-(\d{2})-(\d{4})(?:\s+(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(raw);
  if (m) return local(Number(m[3]), Number(m[2]), Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  return null;
}

const valid = (d: Date): Date | null => (Number.isNaN(d.getTime()) ? null : d);

/** A Dominican wall-clock time as an instant; null for a date that does not exist (31/02). */
function local(year: number, month: number, day: number, hour: number, minute: number, second: number): Date | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = Date.UTC(year, month - 1, day, hour + 4, minute, second);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return new Date(utc);
}

/** Dominican ISO when the text can be read, the text as given otherwise; null when absent. */
export function authorityInstant(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const parsed = parseAuthorityDate(raw);
  return parsed ? toDominicanIso(parsed) : raw;
}

/** A JSON body, or undefined when the text is not JSON (a byte-order mark and blanks aside). */
export function tryJson(body: string): unknown {
  const t = body.charCodeAt(0) === 0xfeff ? body.slice(1).trim() : body.trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * anularrango's answer `{rnc, codigo, nombre, mensajes}` (NOTES §4.8), from a
 * parsed JSON body or its text; null when the body is not such an answer.
 * `mensajes` are documented as strings; objects `{valor, codigo}` are read too.
 */
export function annulmentAnswer(body: unknown): AnnulmentAnswer | null {
  const json = typeof body === 'string' ? tryJson(body) : body;
  if (!isRecord(json)) return null;
  const code = text(pick(json, 'codigo', 'code'));
  const name = text(pick(json, 'nombre', 'estado'));
  const list = pick(json, 'mensajes', 'mensaje', 'messages');
  if (code === null && name === null && list === undefined) return null;
  return {
    rnc: text(pick(json, 'rnc')),
    code,
    name,
    messages: messages(list).map((m) => m.value || String(m.code)),
  };
}

