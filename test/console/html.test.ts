import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw, SafeHtml } from '../../src/console/html.js';

/** What a browser reads back from escaped text: the entities `escapeHtml` writes, decoded. */
const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39|#96);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[e]!);

describe('the html template', () => {
  it('escapes every interpolated string, in text and in quoted attributes: no generated string leaves its context', () => {
    // Strings rich in the characters that matter, and any unicode.
    const nasty = fc.oneof(fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", '`', '=', '/', 'a', ' ', ';', '#') }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(nasty, nasty, (text, attribute) => {
        const out = html`<p title="${attribute}" data-x='${attribute}'>${text}</p>`.value;
        const m = /^<p title="([^"<>'`]*)" data-x='([^"<>'`]*)'>([^<>"'`]*)<\/p>$/.exec(out);
        expect(m, out).not.toBeNull();
        expect(decode(m![1]!)).toBe(attribute);
        expect(decode(m![2]!)).toBe(attribute);
        expect(decode(m![3]!)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps SafeHtml and arrays of it as they are, renders nothing for null, undefined and false, and escapes arrays of strings', () => {
    const item = (s: string) => html`<li>${s}</li>`;
    expect(html`<ul>${['a<b', '"c"'].map(item)}</ul>`.value).toBe('<ul><li>a&lt;b</li><li>&quot;c&quot;</li></ul>');
    expect(html`${null}${undefined}${false}${0}${'x'}`.value).toBe('0x');
    expect(html`${['<i>', raw('<b>')]}`.value).toBe('&lt;i&gt;<b>');
    expect(html`${new SafeHtml('<br>')}`.value).toBe('<br>');
    expect(escapeHtml(`<script>alert('x')</script>`)).toBe('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;');
  });
});
