/** Plain-text tables for people; scripts use --json. */
export function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const text = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(', ') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => text(r[c]))))].join('\n');
}

/** One record as aligned "key: value" lines. */
export function record(value: Record<string, unknown>): string {
  const keys = Object.keys(value);
  const width = Math.max(...keys.map((k) => k.length));
  return keys
    .map((k) => {
      const v = value[k];
      const shown = v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      return `${k.padEnd(width)}  ${shown}`;
    })
    .join('\n');
}
