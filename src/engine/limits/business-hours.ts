/**
 * Business hours as the `alerts.business_hours` setting gives them:
 * `HH:MM-HH:MM` in Dominican time, every day of the week. An end before the
 * start spans midnight (22:00-06:00); equal ends are the whole day. No
 * setting (null) is the whole day too.
 */
export interface BusinessHours {
  /** Minutes after Dominican midnight. */
  readonly start: number;
  readonly end: number;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Dominican time is UTC-4 all year. */
const OFFSET_MS = -4 * 3_600_000;

export function parseBusinessHours(text: string | null): BusinessHours | null {
  if (text === null) return null;
  const m = /^(\d{2}):(\d{2})-(\d{2}):(\d{2})$/.exec(text);
  if (!m) throw new Error(`business hours must be HH:MM-HH:MM, got ${text}`);
  return { start: Number(m[1]) * 60 + Number(m[2]), end: Number(m[3]) * 60 + Number(m[4]) };
}

/** The windows (in Dominican-shifted milliseconds) of the days around [from, to). */
function windows(hours: BusinessHours | null, fromLocal: number, toLocal: number): [number, number][] {
  const out: [number, number][] = [];
  const first = Math.floor(fromLocal / DAY_MS) - 1;
  const last = Math.floor(toLocal / DAY_MS);
  for (let d = first; d <= last; d++) {
    const day = d * DAY_MS;
    if (!hours || hours.start === hours.end) out.push([day, day + DAY_MS]);
    else if (hours.start < hours.end) out.push([day + hours.start * MINUTE_MS, day + hours.end * MINUTE_MS]);
    else out.push([day + hours.start * MINUTE_MS, day + DAY_MS + hours.end * MINUTE_MS]);
  }
  return out;
}

/** Whether an instant falls inside business hours (start included, end excluded). */
export function insideBusinessHours(at: Date, hours: BusinessHours | null): boolean {
  const local = at.getTime() + OFFSET_MS;
  return windows(hours, local, local).some(([s, e]) => local >= s && local < e);
}

/** Milliseconds of business hours between two instants. */
export function businessMsBetween(from: Date, to: Date, hours: BusinessHours | null): number {
  const a = from.getTime() + OFFSET_MS;
  const b = to.getTime() + OFFSET_MS;
  if (b <= a) return 0;
  let total = 0;
  for (const [s, e] of windows(hours, a, b)) total += Math.max(0, Math.min(e, b) - Math.max(s, a));
  return total;
}
