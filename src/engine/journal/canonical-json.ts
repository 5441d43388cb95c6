/**
 * The one text form of a closing's data: JSON with every object's keys in
 * code-unit order and no spaces. Numbers are only integers (amounts are
 * decimal strings), so the form is the same in every language that writes
 * JSON with sorted keys; an auditor recomputes what was signed from the
 * stored text alone.
 */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`canonical JSON holds integers only, not ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as { readonly [key: string]: Json };
  const keys = Object.keys(object).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k]!)}`).join(',')}}`;
}
