import { en } from './en.js';
import { es, type MessageKey } from './es.js';

export type { MessageKey } from './es.js';

/** The console's languages: Spanish (of the Dominican Republic) first, English as a choice. */
export const LANGUAGES = ['es', 'en'] as const;
export type Lang = (typeof LANGUAGES)[number];

const CATALOGUES: Record<Lang, { readonly [K in MessageKey]: string }> = { es, en };

export const isLang = (value: unknown): value is Lang => value === 'es' || value === 'en';
export const isMessageKey = (value: unknown): value is MessageKey => typeof value === 'string' && Object.hasOwn(es, value);

/** The `<html lang>` and the Intl locale of a language. */
export const LOCALES: Record<Lang, string> = { es: 'es-DO', en: 'en' };

/** The text of `key` in `lang`, `{name}` replaced by `params.name` (plain text: the page's `html` escapes it). */
export function t(lang: Lang, key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  return CATALOGUES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/**
 * The language of a request: the `ecf_lang` cookie (the header's switch sets
 * it), else the first of Accept-Language's choices (by q) that is Spanish or
 * English, else Spanish.
 */
export function chooseLanguage(cookie: string | undefined, acceptLanguage: string | undefined): Lang {
  if (isLang(cookie)) return cookie;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...rest] = part.trim().split(';');
      const q = rest.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), i };
    })
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.map((c) => c.lang).find(isLang) ?? 'es';
}
