import { ValidationError } from '../../engine/errors.js';
import { html, type SafeHtml } from '../html.js';
import type { Lang } from '../i18n/index.js';
import { engineMessage, ruleMessage } from '../i18n/rules.js';

/** The engine's field errors by field path (the first message per field, in the page's language), or null when the error is not a validation of fields. */
export function fieldErrors(lang: Lang, error: unknown): Map<string, string> | null {
  if (!(error instanceof ValidationError)) return null;
  const byField = new Map<string, string>();
  for (const e of error.errors) {
    // A form annuls one range: the line's own errors go above the form, its fields' beside them.
    const field = e.path.replace(/^(body|query)\./, '').replace(/^lines(\[0\])?\.?/, '');
    if (!byField.has(field)) byField.set(field, ruleMessage(lang, e));
  }
  // An error the engine could not tie to a field still shows, above the form.
  if (byField.size === 0) byField.set('', engineMessage(lang, error));
  return byField;
}

export interface FieldOptions {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly errors: Map<string, string> | undefined;
  readonly hint?: string;
  readonly value?: string;
  /** The input's attributes other than id, name and value (type, required ...). */
  readonly attrs?: SafeHtml;
  /** A select's options instead of an input. */
  readonly options?: readonly { readonly value: string; readonly label: string }[];
}

/** A labelled control with its hint and, when the engine refused it, its error beside it (aria-describedby, aria-invalid). */
export function field(o: FieldOptions): SafeHtml {
  const error = o.errors?.get(o.name);
  const described = [o.hint ? `${o.id}-hint` : '', error ? `${o.id}-error` : ''].filter(Boolean).join(' ');
  const aria = html`${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  const control = o.options
    ? html`<select id="${o.id}" name="${o.name}"${aria}>${o.options.map((opt) => html`<option value="${opt.value}"${opt.value === o.value ? html` selected` : ''}>${opt.label}</option>`)}</select>`
    : html`<input id="${o.id}" name="${o.name}" value="${o.value ?? ''}"${o.attrs ?? ''}${aria}>`;
  return html`<div class="field">
<label for="${o.id}">${o.label}</label>
${o.hint ? html`<p class="hint" id="${o.id}-hint">${o.hint}</p>` : ''}
${error ? html`<p class="error" id="${o.id}-error">${error}</p>` : ''}
${control}
</div>`;
}

/** The error the engine gave for no one field, above a form. */
export const formError = (errors: Map<string, string> | undefined): SafeHtml =>
  errors?.get('') ? html`<p class="error" role="alert">${errors.get('')}</p>` : html``;

/** A wide table that scrolls sideways on a phone: a named region the keyboard can reach and scroll. */
export const scroller = (label: string, table: SafeHtml): SafeHtml => html`<div class="table-scroll" tabindex="0" role="region" aria-label="${label}">${table}</div>`;
