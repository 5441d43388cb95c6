import type { SandboxMessage } from './outcomes.js';

/**
 * How the authority writes things on the wire: its dates (.NET offsets,
 * US-style receipt times, Dominican time), its message pairs, its error
 * pages, and its case-blind query keys. Kept in one place so every service
 * answers in the same dialect.
 */

/** A verdict's message as the authority writes it: `valor` first, then `codigo`. */
export const wireMessage = (m: SandboxMessage) => ({ valor: m.value, codigo: m.code });

/** The query with its keys lower-cased and values trimmed: the authority takes `RNC`, `rnc` or `Rnc` alike (NOTES §3). */
export function lowerKeys(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
      const value = Array.isArray(v) ? v[0] : v;
      out[k.toLowerCase()] = typeof value === 'string' ? value.trim() : undefined;
    }
  }
  return out;
}

/** An amount as the authority's JSON carries it: a number (1180.5), not the XML's text ("1180.50"). */
export const wireAmount = (amount: string | null): number | null => (amount === null ? null : Number(amount));

const dominican = (d: Date): Date => new Date(d.getTime() - 4 * 3_600_000);
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** As .NET writes a DateTimeOffset: 2026-03-10T10:00:00.1234567-04:00 (Dominican time). */
export function dotnetDateTime(d: Date): string {
  const l = dominican(d);
  const ticks = pad(l.getUTCMilliseconds(), 3) + pad(Math.floor(Math.random() * 10_000), 4);
  return `${l.getUTCFullYear()}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())}T${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())}.${ticks}-04:00`;
}

/** yyyy-MM-ddTHH:mm:ssZ, validarsemilla's format. */
export const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** 8/15/2023 6:06:57 AM, as the authority was seen writing fechaRecepcion (NOTES §4.2), in Dominican time. */
export function usStyle(d: Date): string {
  const l = dominican(d);
  const h = l.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${l.getUTCMonth() + 1}/${l.getUTCDate()}/${l.getUTCFullYear()} ${h12}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

export const SERVICE_UNAVAILABLE = '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>HTTP Error 503. The service is unavailable.</p></body></html>';
export const GATEWAY_TIMEOUT = '<!DOCTYPE html><html><head><title>Gateway Timeout</title></head><body><h1>Gateway Timeout</h1></body></html>';
