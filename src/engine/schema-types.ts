import { Type, type TSchema, type SchemaOptions } from '@sinclair/typebox';

/**
 * Field shapes shared by every schema, in the forms the contract's
 * Conventions give: decimals and integers as JSON numbers or strings, dates
 * as YYYY-MM-DD, identifiers as UUIDs.
 */

export const DECIMAL_PATTERN = '^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?$';
export const INTEGER_PATTERN = '^-?(?:0|[1-9]\\d*)$';

export const Decimal = (options: SchemaOptions = {}) =>
  Type.Union([Type.Number(), Type.String({ pattern: DECIMAL_PATTERN })], {
    errorMessage: 'must be a decimal number, as a JSON number or a string like "1234.50"',
    ...options,
  });

export const Integer = (options: SchemaOptions = {}) =>
  Type.Union([Type.Integer(), Type.String({ pattern: INTEGER_PATTERN })], {
    errorMessage: 'must be an integer, as a JSON integer or a string like "42"',
    ...options,
  });

export const DateString = (options: SchemaOptions = {}) =>
  Type.String({ format: 'date', errorMessage: 'must be a calendar date YYYY-MM-DD', ...options });

export const DateTime = (options: SchemaOptions = {}) =>
  Type.String({ format: 'date-time', ...options });

export const Uuid = (options: SchemaOptions = {}) =>
  Type.String({ format: 'uuid', errorMessage: 'must be a UUID', ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ENVIRONMENTS = ['test', 'cert', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
export const EnvironmentSchema = Type.Union(
  ENVIRONMENTS.map((e) => Type.Literal(e)),
  { errorMessage: 'must be one of test, cert, production' },
);

/** RNC (9 digits) or cédula (11 digits). */
export const Rnc = (options: SchemaOptions = {}) =>
  Type.String({
    pattern: '^(?:\\d{9}|\\d{11})$',
    errorMessage: 'must be an RNC of 9 digits or a cédula of 11 digits, digits only',
    ...options,
  });

/**
 * Text the XML can carry: XML 1.0 has no control characters (tab, line feed
 * and carriage return aside), no U+FFFE/U+FFFF and no unpaired surrogates.
 * The one rule for every text that may end up in a document (the issue
 * payload's strings, the tenant's names, the emitter profile).
 */
const XML_CHAR = '(?:[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uD800-\\uDFFF\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])';
export const XML_TEXT = `^${XML_CHAR}*$`;
/** How a refusal of XML_TEXT reads, after "must be ...". */
export const XML_TEXT_RULE = 'without control characters (tab and line breaks aside), U+FFFE or U+FFFF';

/** Text a person writes: something besides spaces, and only characters XML can carry (XML_TEXT). */
export const Text = (options: SchemaOptions & { maxLength?: number } = {}) =>
  Type.String({
    minLength: 1,
    pattern: `^(?=[\\s\\S]*\\S)${XML_CHAR}*$`,
    errorMessage: `must be a non-empty text${options.maxLength ? ` of at most ${options.maxLength} characters` : ''}, ${XML_TEXT_RULE}`,
    ...options,
  });
