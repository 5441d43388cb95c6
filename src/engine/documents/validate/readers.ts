import { DECIMAL_PATTERN, INTEGER_PATTERN } from '../../schema-types.js';
import { type Dec, dec } from '../../money.js';
import { ECF_TYPES, type EcfType } from '../payload.js';

/**
 * Readers: a value of the right shape, or undefined. A value of the wrong
 * shape already has its error from the payload schema (fieldErrors), so the
 * rules read with these and check only what the schema cannot say.
 */

export type Obj = Record<string, unknown>;
const DECIMAL = new RegExp(DECIMAL_PATTERN);
const INTEGER = new RegExp(INTEGER_PATTERN);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);
export const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const decimal = (v: unknown): Dec | undefined =>
  (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && DECIMAL.test(v)) ? dec(v as number | string) : undefined;
export const integer = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && INTEGER.test(v) ? Number(v) : undefined;
export const given = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
export const date = (v: unknown): string | undefined => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

export const readType = (v: unknown): EcfType | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{2}$/.test(v) ? Number(v) : NaN;
  return (ECF_TYPES as readonly number[]).includes(n) ? (n as EcfType) : null;
};
