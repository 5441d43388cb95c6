import { Dec } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import type { Notice } from '../model.js';
import type { BillingIndicator } from '../totals.js';
import { decimal } from './readers.js';

/**
 * The contract's sections, in the order their errors are reported. The
 * pipeline checks some sections before the totals and some after (prepare.ts),
 * so each error is filed under its section and the list is read in this
 * order, whichever step found it.
 */
export const SECTIONS = [
  'header',
  'payment',
  'lines',
  'globalAdjustments',
  'totals',
  'buyer',
  'reference',
  'foreignCurrency',
  'passthrough',
  'tolerance',
] as const;
export type Section = (typeof SECTIONS)[number];

export type Report = (path: string, code: string, message: string) => void;

/** What one section's rules report through. */
export interface SectionNotices {
  readonly error: Report;
  readonly warning: Report;
}

export class Notices {
  private readonly shape: Notice[];
  private readonly shapePaths: Set<string>;
  private readonly found = new Map<Section, { errors: Notice[]; warnings: Notice[] }>(SECTIONS.map((s) => [s, { errors: [], warnings: [] }]));

  constructor(shape: readonly Notice[]) {
    this.shape = shape.map((e) => ({ ...e }));
    this.shapePaths = new Set(shape.map((e) => e.path));
  }

  /** A section's reporter. A rule error is dropped when its field already has a shape error. */
  in(section: Section): SectionNotices {
    const bucket = this.found.get(section)!;
    return {
      error: (path, code, message) => {
        if (!this.shapePaths.has(path)) bucket.errors.push({ path, code, message });
      },
      warning: (path, code, message) => {
        bucket.warnings.push({ path, code, message });
      },
    };
  }

  /** Shape errors, then each section's, keeping the first of each path and code (two rules can reach the same field). */
  get errors(): Notice[] {
    const out = this.shape.map((e) => ({ ...e }));
    const seen = new Set<string>();
    for (const s of SECTIONS) {
      for (const e of this.found.get(s)!.errors) {
        const key = `${e.path}\u0000${e.code}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(e);
      }
    }
    return out;
  }

  get warnings(): Notice[] {
    return SECTIONS.flatMap((s) => this.found.get(s)!.warnings);
  }
}

export const RATE_LABEL: Record<BillingIndicator, string> = { 0: 'non-invoiceable', 1: '18 %', 2: '16 %', 3: '0 %', 4: 'exempt' };

export interface DecimalRule {
  /** Maximum decimals. */
  scale: number;
  min?: 'positive' | 'non-negative';
  /** Maximum integer digits. */
  integerDigits?: number;
  max?: Dec;
  label?: string;
}

/** Reads a decimal and checks its sign and precision; the value is returned even when a rule failed. */
export function checkDecimal(n: SectionNotices, path: string, value: unknown, rule: DecimalRule): Dec | undefined {
  const d = decimal(value);
  if (d === undefined) return undefined;
  const label = rule.label ?? path;
  if (rule.min === 'positive' && !d.gt(0)) n.error(path, ECF_CODES.OutOfRange, `${label} must be greater than 0`);
  else if (rule.min === 'non-negative' && d.lt(0)) n.error(path, ECF_CODES.OutOfRange, `${label} must not be negative`);
  if (rule.max && d.gt(rule.max)) n.error(path, ECF_CODES.OutOfRange, `${label} must be at most ${rule.max.toString()}`);
  if (rule.integerDigits !== undefined && d.abs().trunc().toString().length > rule.integerDigits) {
    n.error(path, ECF_CODES.OutOfRange, `${label} may have at most ${rule.integerDigits} integer digits`);
  }
  if (d.decimalPlaces() > rule.scale) n.error(path, ECF_CODES.TooManyDecimals, `${label} may have at most ${rule.scale} decimals`);
  return d;
}

/** The XSD's amounts: 16 integer digits, 2 decimals (Decimal18D1or2). */
export const AMOUNT: DecimalRule = { scale: 2, min: 'non-negative', integerDigits: 16 };
export const SIGNED_AMOUNT: DecimalRule = { scale: 2, integerDigits: 16 };
export const POSITIVE_AMOUNT: DecimalRule = { ...AMOUNT, min: 'positive' };
/** 10^16: the first amount with 17 integer digits. */
export const AMOUNT_LIMIT = new Dec('1e16');
