import { dominicanDayBounds } from '../clock.js';
import { invalidField } from '../errors.js';

/** An export's period: Dominican calendar days, both ends included. */
export interface ExportPeriod {
  readonly from: string;
  readonly to: string;
  /** yyyy-MM when the period is one whole month (a month's closing then belongs to it). */
  readonly month: string | null;
  /** Milliseconds: the first instant of `from`, and the first instant after `to` (Dominican time). */
  readonly startMs: number;
  readonly endMs: number;
}

export interface PeriodInput {
  readonly month?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A year and a day: an export is a month or a fiscal year, not a decade. */
const MAX_DAYS = 366;

const realDay = (d: string) => DAY.test(d) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;

function lastDayOf(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export function exportPeriod(input: PeriodInput): ExportPeriod {
  const { month, from, to } = input;
  if (month !== undefined && (from !== undefined || to !== undefined)) throw invalidField('month', 'Export.PeriodTwice', 'Give either month or from and to, not both.');
  if (month !== undefined) {
    if (!MONTH.test(month)) throw invalidField('month', 'Export.MonthFormat', 'month must be a calendar month written yyyy-MM, e.g. 2026-10.');
    return bounds(`${month}-01`, lastDayOf(month), month);
  }
  if (from === undefined && to === undefined) throw invalidField('month', 'Export.PeriodMissing', 'Give the period: month (yyyy-MM), or from and to (yyyy-MM-dd, both included).');
  if (from === undefined || !realDay(from)) throw invalidField('from', 'Export.DayFormat', 'from must be a calendar day written yyyy-MM-dd.');
  if (to === undefined || !realDay(to)) throw invalidField('to', 'Export.DayFormat', 'to must be a calendar day written yyyy-MM-dd.');
  if (to < from) throw invalidField('to', 'Export.PeriodOrder', 'to must not come before from.');
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_DAYS) throw invalidField('to', 'Export.PeriodTooLong', `An export covers at most ${MAX_DAYS} days; this period has ${days}.`);
  const whole = from.endsWith('-01') && to === lastDayOf(from.slice(0, 7)) ? from.slice(0, 7) : null;
  return bounds(from, to, whole);
}

function bounds(from: string, to: string, month: string | null): ExportPeriod {
  return { from, to, month, startMs: Date.parse(dominicanDayBounds(from).start), endMs: Date.parse(dominicanDayBounds(to).end) };
}
