import type { Dispatcher } from 'undici';
import { undici } from '../net/undici.js';
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentSchema, Nullable, type Environment } from '../schema-types.js';
import { TaxauthError } from './errors.js';
import { asList, isRecord, pick, text } from './parse.js';
import { DEFAULT_TLS, explainTlsFailure, isTlsFailure, tlsCause, type TaxauthTls } from './tls.js';

/**
 * The authority's status host (NOTES §1, §3; DT p.47–51): three GET
 * services behind `Authorization: Apikey <key>`, the key the taxpayer
 * obtains from the authority.
 *
 * - obtenerestatus: `[{servicio, estatus, ambiente}]`
 * - obtenerventanasmantenimiento: `{ventanaMantenimientos: [{ambiente,
 *   horaInicio: "9:00 AM", horaFin: "12:00 PM", dias: ["06-08-2020"]}]}`
 * - verificarestado?ambiente=1|2|3: `{estado: "Disponible" | "No Disponible"}`
 *
 * NOTES does not show these answers; the shapes above are DT's examples.
 * The parse takes the documented names in any case (and a few near
 * spellings that other clients write), and anything else is a `protocol`
 * error that says what was expected and which keys came instead. The key
 * never appears in an error.
 */

export const STATUS_PATHS = {
  status: 'api/estatusservicios/obtenerestatus',
  windows: 'api/estatusservicios/obtenerventanasmantenimiento',
  check: 'api/estatusservicios/verificarestado',
} as const;

/** verificarestado's `ambiente` (DT p.51): 1 PreCertificación, 2 Producción, 3 Certificación. */
export const AMBIENTE_NUMBER: Readonly<Record<Environment, number>> = { test: 1, production: 2, cert: 3 };

// Schemas, not only types: the status snapshot keeps these in the store and reads them back through
// them (authority-status.ts).
export const ServiceStatusValue = Type.Object({
  service: Type.String(),
  /** As the host wrote it, e.g. Disponible. */
  status: Type.String(),
  /** The environment the host named; null when its name is not one we know. */
  environment: Nullable(EnvironmentSchema),
  /** true for Disponible, false for No Disponible (or maintenance), null for any other word. */
  available: Nullable(Type.Boolean()),
});
export type ServiceStatus = Readonly<Static<typeof ServiceStatusValue>>;

export const MaintenanceWindowValue = Type.Object({
  /** null: the host named no environment we know, so it is taken to concern all of them. */
  environment: Nullable(EnvironmentSchema),
  /** As the host wrote it. */
  ambiente: Type.String(),
  /** UTC ISO instants; the host writes Dominican local time (UTC-4). */
  startsAt: Type.String(),
  endsAt: Type.String(),
});
export type MaintenanceWindow = Readonly<Static<typeof MaintenanceWindowValue>>;

export interface MaintenanceSchedule {
  readonly windows: readonly MaintenanceWindow[];
  /** Entries that could not be read, each naming its position and field; the others are kept. */
  readonly problems: readonly string[];
}

export interface EnvironmentCheck {
  readonly environment: Environment;
  readonly status: string;
  readonly available: boolean | null;
}

export interface StatusClientOptions {
  /** e.g. https://statusecf.dgii.gov.do */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly dispatcher?: Dispatcher;
  readonly tls?: TaxauthTls;
}

export class StatusClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #tls: TaxauthTls;

  constructor(options: StatusClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.#apiKey = options.apiKey;
    this.#dispatcher = options.dispatcher;
    this.#tls = options.tls ?? DEFAULT_TLS;
  }

  /** Every service of every environment the host lists, with its status. */
  async services(): Promise<ServiceStatus[]> {
    const op = 'obtenerestatus';
    const json = await this.#get(op, STATUS_PATHS.status);
    const list = Array.isArray(json) ? json : isRecord(json) ? pick(json, 'servicios', 'estatusServicios', 'data') : undefined;
    if (!Array.isArray(list)) throw shape(op, 'a list of {servicio, estatus, ambiente}', json);
    const out: ServiceStatus[] = [];
    list.forEach((entry, i) => {
      const service = isRecord(entry) ? text(pick(entry, 'servicio', 'nombre', 'service')) : null;
      const status = isRecord(entry) ? text(pick(entry, 'estatus', 'estado', 'status')) : null;
      if (!isRecord(entry) || service === null || status === null) throw shape(op, `[${i}] with servicio and estatus`, entry);
      const ambiente = text(pick(entry, 'ambiente', 'environment'));
      out.push({ service, status, environment: environmentOf(ambiente), available: availability(status) });
    });
    return out;
  }

  /** The announced maintenance windows, as instants. */
  async maintenanceWindows(): Promise<MaintenanceSchedule> {
    const op = 'obtenerventanasmantenimiento';
    const json = await this.#get(op, STATUS_PATHS.windows);
    const list = Array.isArray(json)
      ? json
      : isRecord(json)
        ? pick(json, 'ventanaMantenimientos', 'ventanasMantenimiento', 'ventanasMantenimientos', 'ventanaMantenimiento')
        : undefined;
    if (list === null || (list === undefined && isRecord(json) && Object.keys(json).length === 0)) return { windows: [], problems: [] };
    if (!Array.isArray(list)) throw shape(op, '{ventanaMantenimientos: [{ambiente, horaInicio, horaFin, dias}]}', json);
    return readWindows(list);
  }

  /** Whether an environment is up, as verificarestado says ("No Disponible" during maintenance). */
  async checkEnvironment(environment: Environment): Promise<EnvironmentCheck> {
    const op = 'verificarestado';
    const json = await this.#get(op, `${STATUS_PATHS.check}?ambiente=${AMBIENTE_NUMBER[environment]}`);
    const status = typeof json === 'string' ? text(json) : isRecord(json) ? text(pick(json, 'estado', 'estatus', 'status')) : null;
    if (status === null) throw shape(op, '{estado: "Disponible" | "No Disponible"}', json);
    return { environment, status, available: availability(status) };
  }

  async #get(op: string, path: string): Promise<unknown> {
    const url = `${this.baseUrl}/${path}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    let status: number;
    let body: string;
    let contentType: string | null;
    try {
      const response = await undici().request(url, {
        method: 'GET',
        headers: { accept: 'application/json', authorization: `Apikey ${this.#apiKey}`, 'user-agent': 'ecf-appliance' },
        ...(this.#dispatcher && { dispatcher: this.#dispatcher }),
        signal: controller.signal,
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
      });
      status = response.statusCode;
      body = await response.body.text();
      const ct = response.headers['content-type'];
      contentType = Array.isArray(ct) ? (ct[0] ?? null) : (ct ?? null);
    } catch (e) {
      if (timedOut) throw new TaxauthError('timeout', `No answer from the status host (${op}) within ${this.timeoutMs} ms.`, { operation: op });
      const why = isTlsFailure(e) ? explainTlsFailure(tlsCause(e), this.#tls) : e instanceof Error ? e.message : String(e);
      throw new TaxauthError('network', this.#redact(`Could not reach the status host ${this.baseUrl} (${op}): ${why}`), { operation: op });
    } finally {
      clearTimeout(timer);
    }
    if (status === 401 || status === 403) {
      throw new TaxauthError('http', `The status host refused the API key (${op}, HTTP ${status}); set the key the authority gave you: ecf taxauth status-key set`, { status, operation: op });
    }
    if (status < 200 || status > 299) throw TaxauthError.fromResponse(status, this.#redact(body), contentType, op);
    const t = body.charCodeAt(0) === 0xfeff ? body.slice(1).trim() : body.trim();
    try {
      return JSON.parse(t) as unknown;
    } catch {
      throw new TaxauthError('protocol', `Unexpected answer from the status host (${op}): not JSON: ${this.#redact(t.slice(0, 120))}`, { status, operation: op, rawBody: this.#redact(body) });
    }
  }

  #redact(value: string): string {
    return this.#apiKey.length >= 4 ? value.split(this.#apiKey).join('[key]') : value;
  }
}

/** A 2xx answer of a shape we do not know: what was expected, and what came. */
function shape(op: string, expected: string, got: unknown): TaxauthError {
  const seen = isRecord(got) ? `an object with keys ${Object.keys(got).slice(0, 8).join(', ') || '(none)'}` : Array.isArray(got) ? `a list of ${got.length}` : JSON.stringify(got)?.slice(0, 80) ?? String(got);
  return new TaxauthError('protocol', `Unexpected answer from the status host (${op}): expected ${expected}, got ${seen}.`, { operation: op });
}

const fold = (s: string): string => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[\s_-]+/g, '').toLowerCase();

/** The environment a name stands for: the host's (PreCertificacion, Produccion, Certificacion), a path segment, or ours. */
export function environmentOf(name: string | null): Environment | null {
  if (name === null) return null;
  const n = fold(name);
  if (n === '1' || n === 'precertificacion' || n === 'testecf' || n === 'test' || n === 'pruebas') return 'test';
  if (n === '2' || n === 'produccion' || n === 'ecf' || n === 'production') return 'production';
  if (n === '3' || n === 'certificacion' || n === 'certecf' || n === 'cert') return 'cert';
  return null;
}

/** Disponible → true; No Disponible, En Mantenimiento, Fuera de servicio → false; anything else → null. */
export function availability(status: string): boolean | null {
  const n = fold(status);
  if (n === 'disponible' || n === 'available' || n === 'operativo' || n === 'activo') return true;
  if (/^(nodisponible|noavailable|unavailable|mantenimiento|enmantenimiento|fueradeservicio|inactivo|caido)$/.test(n)) return false;
  return null;
}

const DAY_MS = 86_400_000;
const DOMINICAN_OFFSET_MS = -4 * 60 * 60 * 1000;

/** The window entries, each day of each entry a window of its own. */
export function readWindows(list: readonly unknown[]): MaintenanceSchedule {
  const windows: MaintenanceWindow[] = [];
  const problems: string[] = [];
  list.forEach((entry, i) => {
    const at = `ventanaMantenimientos[${i}]`;
    if (!isRecord(entry)) {
      problems.push(`${at} is not an object`);
      return;
    }
    const ambiente = text(pick(entry, 'ambiente', 'environment')) ?? '';
    const startText = text(pick(entry, 'horaInicio', 'inicio'));
    const endText = text(pick(entry, 'horaFin', 'fin'));
    const start = clock(startText);
    const end = clock(endText);
    if (start === null) problems.push(`${at}.horaInicio ${JSON.stringify(startText)} is not a time such as 9:00 AM`);
    if (end === null) problems.push(`${at}.horaFin ${JSON.stringify(endText)} is not a time such as 12:00 PM`);
    const days = asList(pick(entry, 'dias', 'fechas', 'dia', 'fecha'));
    if (days.length === 0) problems.push(`${at}.dias is missing or empty`);
    if (start === null || end === null) return;
    days.forEach((d, j) => {
      const day = calendarDay(text(d));
      if (day === null) {
        problems.push(`${at}.dias[${j}] ${JSON.stringify(d)} is not a date such as 06-08-2020`);
        return;
      }
      const startsAt = day + start - DOMINICAN_OFFSET_MS;
      // An end at or before the start is the next morning: a window across midnight.
      const endsAt = day + end - DOMINICAN_OFFSET_MS + (end <= start ? DAY_MS : 0);
      windows.push({ environment: environmentOf(ambiente || null), ambiente, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(endsAt).toISOString() });
    });
  });
  windows.sort((a, b) => a.startsAt.localeCompare(b.startsAt));
  return { windows, problems };
}

/** ms since midnight of `9:00 AM`, `12:00 PM`, `13:30`, `13:30:00`; null otherwise. */
function clock(value: string | null): number | null {
  if (value === null) return null;
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])?\.?\s*m?\.?$/i.exec(value.trim());
  if (!m) return null;
  let h = Number(m[1]);
  const min = Number(m[2]);
  const sec = Number(m[3] ?? 0);
  const half = m[4]?.toLowerCase();
  if (min > 59 || sec > 59) return null;
  if (half) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (half === 'p' ? 12 : 0);
  } else if (h > 24 || (h === 24 && (min > 0 || sec > 0))) return null;
  return ((h * 60 + min) * 60 + sec) * 1000;
}

/** UTC midnight of the calendar day `dd-MM-yyyy`, `dd/MM/yyyy` or `yyyy-MM-dd` (a date-time keeps its date); null otherwise. */
function calendarDay(value: string | null): number | null {
  if (value === null) return null;
  let y: number, mo: number, d: number;
  const dmy = /^(\d{1,2})[-/](\d{1,2})[-/](\d{4})$/.exec(value.trim());
  const ymd = /^(\d{4})-(\d{2})-(\d{2})(?:T.*)?$/.exec(value.trim());
  if (dmy) [d, mo, y] = [Number(dmy[1]), Number(dmy[2]), Number(dmy[3])];
  else if (ymd) [y, mo, d] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])];
  else return null;
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t : null;
}
