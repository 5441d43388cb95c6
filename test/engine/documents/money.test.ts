import { describe, expect, it } from 'vitest';
import { Dec, fixed, money } from '../../../src/engine/money.js';
import { price } from '../../../src/engine/documents/ecf-xml.js';

// The plain definitions the fast paths must match character for character.
const rounded = (d: Dec, places: number) => d.toDecimalPlaces(places, Dec.ROUND_HALF_UP).toFixed(places);
const plainPrice = (d: Dec) => {
  const four = d.toDecimalPlaces(4, Dec.ROUND_HALF_UP);
  return four.decimalPlaces() <= 2 ? four.toFixed(2) : four.toFixed(four.decimalPlaces());
};

const EDGES = ['0', '-0', '0.005', '-0.005', '0.004999', '-0.0000001', '1e-8', '1.005', '2.675', '-2.675', '385', '385.1', '385.10',
  '999999999999999.99', '1e15', '1e20', '1e21', '123456789012345678.123', '0.33355', '150', '0.3350'];

/** Decimal texts of 1 to 18 digits, 0 to 6 of them decimals, a third negative; the same every run. */
function samples(n: number): string[] {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => {
    const digits = Math.floor(next() * 18) + 1;
    const places = Math.floor(next() * 7);
    let text = Array.from({ length: digits }, () => Math.floor(next() * 10)).join('');
    if (places > 0 && places < digits) text = `${text.slice(0, digits - places)}.${text.slice(digits - places)}`;
    return next() < 0.3 ? `-${text}` : text;
  });
}

describe('writing amounts', () => {
  it('money, fixed and price write exactly what rounding half-up and toFixed write', () => {
    for (const text of [...EDGES, ...samples(20_000)]) {
      const d = new Dec(text);
      for (const v of [d, d.times('1.18')]) {
        expect(money(v), text).toBe(rounded(v, 2));
        expect(fixed(v, 3), text).toBe(rounded(v, 3));
        expect(price(v), text).toBe(plainPrice(v));
      }
    }
  });

  it('pads and rounds as the XML wants', () => {
    expect(money(new Dec('385'))).toBe('385.00');
    expect(money(new Dec('385.1'))).toBe('385.10');
    expect(money(new Dec('1.005'))).toBe('1.01');
    expect(money(new Dec('-0.0000001'))).toBe('0.00');
    expect(price(new Dec('0.3350'))).toBe('0.335');
    expect(price(new Dec('150'))).toBe('150.00');
  });
});
