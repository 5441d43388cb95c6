/**
 * The amount band `ecf_amount_counts` keeps its totals by (migration 0018,
 * which has a copy of this rule in SQL): an amount in cents is its number of
 * digits times 100 plus its first two digits, so 90 bands a decade, each a
 * tenth of a decade or less wide and in the order of the amounts. 0 to 9
 * cents are their own band; amounts below zero are band -1.
 */
export function amountBand(cents: number): number {
  if (cents < 0) return -1;
  if (cents < 10) return cents;
  const text = String(cents);
  return text.length * 100 + Number(text.slice(0, 2));
}

/** The lowest and highest amount in cents of a band. */
export function bandBounds(band: number): { low: number; high: number } {
  if (band < 0) return { low: Number.MIN_SAFE_INTEGER, high: -1 };
  if (band < 10) return { low: band, high: band };
  const unit = 10 ** (Math.floor(band / 100) - 2);
  return { low: (band % 100) * unit, high: ((band % 100) + 1) * unit - 1 };
}
