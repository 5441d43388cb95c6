/**
 * The one source of "now". Every ladder, lease and notice reads it, so tests
 * move time instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = '2026-01-15T12:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(to: Date | string): void {
    this.#ms = new Date(to).getTime();
  }
}

/** Dominican Republic time: UTC-4 all year, no daylight saving. */
const DOMINICAN_OFFSET_MS = -4 * 60 * 60 * 1000;

/** The instant as ISO 8601 with the Dominican offset, e.g. 2026-11-22T08:00:00.000-04:00. */
export function toDominicanIso(instant: Date | string): string {
  const ms = new Date(instant).getTime();
  const local = new Date(ms + DOMINICAN_OFFSET_MS).toISOString();
  return `${local.slice(0, -1)}-04:00`;
}

/** The Dominican calendar date (YYYY-MM-DD) of an instant. */
export function dominicanDate(instant: Date | string): string {
  return toDominicanIso(instant).slice(0, 10);
}

/** Stored form of an instant: UTC ISO with milliseconds, which sorts as text. */
export function toStoredInstant(instant: Date): string {
  return instant.toISOString();
}

/**
 * The instants of the `ecf` row (issued_at, signed_at, updated_at) and of
 * `ecf_attempts.recorded_at` are integer milliseconds since the epoch
 * (migration 0022): 6 bytes in a SQLite record instead of 24 of ISO text, in
 * the row and in each index that holds them. Every read and write of those
 * columns goes through this pair, so what is shown stays the ISO text of
 * before, to the millisecond.
 */
export function toRowInstant(instant: Date | string): number {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  if (!Number.isInteger(ms)) throw new Error(`Not an instant: ${String(instant)}`);
  return ms;
}

/** The UTC ISO text (milliseconds, `Z`) of an instant kept by toRowInstant. */
export function fromRowInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** The Dominican calendar month (yyyy-MM) of an instant: monthly caps and billing periods. */
export function dominicanMonth(instant: Date | string): string {
  return toDominicanIso(instant).slice(0, 7);
}

/** The instants a Dominican month (yyyy-MM) starts and ends (the next one's start). */
export function dominicanMonthBounds(period: string): { start: Date; end: Date } {
  const [y, m] = period.split('-').map(Number) as [number, number];
  const at = (year: number, month: number) => new Date(Date.UTC(year, month - 1, 1) - DOMINICAN_OFFSET_MS);
  return { start: at(y, m), end: m === 12 ? at(y + 1, 1) : at(y, m + 1) };
}

/** The stored instants (UTC ISO) a Dominican calendar day (yyyy-MM-dd) starts and ends (the next one's start): list filters From and To. */
export function dominicanDayBounds(date: string): { start: string; end: string } {
  const start = Date.parse(`${date}T00:00:00Z`) - DOMINICAN_OFFSET_MS;
  return { start: new Date(start).toISOString(), end: new Date(start + 86_400_000).toISOString() };
}
