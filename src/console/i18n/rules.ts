import type { EngineError, FieldError } from '../../engine/errors.js';
import type { Lang } from './index.js';
import { REQUIRED, RULE_CODES, type RuleSentence } from './rule-codes.js';
import { RULE_FIELDS } from './rule-fields.js';

/**
 * The engine's refusals in the page's language. The engine speaks English and
 * its sentences are the API's contract, so the console translates by the
 * stable code (and, where the code alone is vague, by field and code) rather
 * than by the text. English pages keep the engine's own sentence.
 */

/** The catalogue's field for an engine path: indexes and the query/body prefix left out (`lines[2].quantity` -> `lines.quantity`). */
export const ruleField = (path: string): string => path.replace(/^(query|body)\./, '').replace(/\[\d+\]/g, '');

/** The catalogue's sentence for an error, field-specific first; undefined when it has none. */
export function ruleSentence(error: Pick<FieldError, 'path' | 'code'>): RuleSentence | undefined {
  const key = `${ruleField(error.path)}:${error.code}`;
  if (Object.hasOwn(RULE_FIELDS, key)) return RULE_FIELDS[key];
  return Object.hasOwn(RULE_CODES, error.code) ? RULE_CODES[error.code] : undefined;
}

/** An engine error's sentence for beside its field: the path it starts with left out, capitalised, with a full stop. */
export function sentence(e: Pick<FieldError, 'path' | 'message'>): string {
  const text = e.message.startsWith(`${e.path} `) ? e.message.slice(e.path.length + 1) : e.message;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/**
 * A field error for a person: in English the engine's sentence (a plain
 * missing field reads "Required.", as the form always said); in Spanish the
 * catalogue's, else (rarely: the tests drive the forms to keep it so) the
 * engine's.
 */
export function ruleMessage(lang: Lang, error: FieldError): string {
  const known = ruleSentence(error);
  if (lang === 'en') return known === REQUIRED ? REQUIRED.en : sentence(error);
  return known?.es ?? sentence(error);
}

/** An EngineError that is not about one field (a conflict, a refused file, not found), by its code. */
export function engineMessage(lang: Lang, error: Pick<EngineError, 'code' | 'message'>): string {
  if (lang === 'en') return error.message;
  return (Object.hasOwn(RULE_CODES, error.code) ? RULE_CODES[error.code]?.es : undefined) ?? error.message;
}
