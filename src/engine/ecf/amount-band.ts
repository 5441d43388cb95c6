/**
 * The amount bands the amount counts keep their totals by: an amount in
 * cents is its number of digits times 10^lead plus its first `lead` digits,
 * so the bands are in the order of the amounts. Amounts below 10^(lead-1)
 * cents are their own band; amounts below zero are band -1.
 *
 * - Two leading digits (90 bands a decade): `ecf_amount_counts` and
 *   `ecf_day_amount_counts` (migrations 0018 and 0023, which have a copy of
 *   this rule in SQL), whose rows multiply by type, status and environment or
 *   by day, so they stay coarse.
 * - Three (900 bands a decade): `ecf_fine_amount_counts` (0025), one row per
 *   band and tenant, so an edge band holds a tenth as many e-CF to count.
 */
export type BandLead = 2 | 3;

export function amountBand(cents: number, lead: BandLead = 2): number {
  if (cents < 0) return -1;
  if (cents < 10 ** (lead - 1)) return cents;
  const text = String(cents);
  return text.length * 10 ** lead + Number(text.slice(0, lead));
}

/** The lowest and highest amount in cents of a band. */
export function bandBounds(band: number, lead: BandLead = 2): { low: number; high: number } {
  if (band < 0) return { low: Number.MIN_SAFE_INTEGER, high: -1 };
  if (band < 10 ** (lead - 1)) return { low: band, high: band };
  const unit = 10 ** (Math.floor(band / 10 ** lead) - lead);
  const first = band % 10 ** lead;
  return { low: first * unit, high: (first + 1) * unit - 1 };
}
