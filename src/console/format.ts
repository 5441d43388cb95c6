import { LOCALES, type Lang } from './i18n/index.js';

/** Dominican time (UTC-4 all year): every date and time the console shows. */
const ZONE = 'America/Santo_Domingo';
const DECIMAL = /^-?\d{1,30}(\.\d{1,10})?$/;

/**
 * An amount in Dominican pesos from the engine's decimal string, formatted
 * for the language. Intl formats the decimal string itself (exact: no float
 * in between), so 12345678901234.57 stays what it is.
 */
export function money(lang: Lang, amount: string): string {
  if (!DECIMAL.test(amount)) throw new Error(`money: ${JSON.stringify(amount)} is not a decimal string`);
  const format = new Intl.NumberFormat(LOCALES[lang], { style: 'currency', currency: 'DOP', minimumFractionDigits: 2, maximumFractionDigits: 10 });
  // A decimal string is an exact value for Intl.NumberFormat (ES2023), which the types do not say yet.
  return format.format(amount as unknown as number);
}

/** A whole number (counts) for the language. */
export const count = (lang: Lang, n: number): string => new Intl.NumberFormat(LOCALES[lang]).format(n);

/** The Dominican calendar date of an instant, e.g. 27 nov 2026. */
export const date = (lang: Lang, instant: Date | string): string =>
  new Intl.DateTimeFormat(LOCALES[lang], { timeZone: ZONE, dateStyle: 'medium' }).format(new Date(instant));

/** The Dominican date and time of an instant, to the minute. */
export const dateTime = (lang: Lang, instant: Date | string): string =>
  new Intl.DateTimeFormat(LOCALES[lang], { timeZone: ZONE, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(instant));
