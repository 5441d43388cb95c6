/**
 * HTML made safe by construction: `html` is a tagged template whose every
 * interpolated value is escaped, unless it is already `SafeHtml` (another
 * `html` fragment, or an array of them). The escaping (& < > " ' and `) is
 * right in text and in quoted attribute values, so a template always quotes
 * its attributes (`<a href="${url}">`). Never build HTML by concatenating
 * strings: a page is `html` all the way down.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

/** null, undefined and false render nothing (`${cond && html`…`}`); arrays render each item. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Text the code itself wrote and knows to be HTML (never anything a caller sent). */
export const raw = (trusted: string): SafeHtml => new SafeHtml(trusted);
