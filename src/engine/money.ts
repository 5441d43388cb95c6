import { Decimal as DecimalJs } from 'decimal.js';

/**
 * Fiscal amounts are decimals, never floats. Numbers from JSON are read
 * through their shortest decimal text (0.1 stays 0.1), computed with 40
 * significant digits, and rounded half-up at the third decimal where the
 * authority's format asks for two (3 × 0.335 = 1.005 → 1.01).
 */
export const Dec = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Dec = InstanceType<typeof Dec>;

export const ZERO = new Dec(0);

export const dec = (value: number | string | Dec | null | undefined, fallback: Dec = ZERO): Dec =>
  value === null || value === undefined ? fallback : new Dec(typeof value === 'number' ? String(value) : value);

export const round2 = (d: Dec): Dec => d.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
export const round4 = (d: Dec): Dec => d.toDecimalPlaces(4, Dec.ROUND_HALF_UP);

/** Amounts always carry exactly two decimals in the XML ("385.00"). */
export const money = (d: Dec): string => round2(d).toFixed(2);

export const sum = (values: readonly Dec[]): Dec => values.reduce((a, b) => a.plus(b), ZERO);
