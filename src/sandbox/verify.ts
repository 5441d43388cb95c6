import type { Element } from '@xmldom/xmldom';

/**
 * The sandbox checks documents as the engine's receiver does: the engine's parser, and a
 * signature check with the same rules and canonicalization (engine/signing/fast-verify.ts), made cheap.
 */
export { parseXml, textOf, type Parsed, type SignatureCheck } from '../engine/signing/verify.js';
export { verifySignatureFast as verifySignature } from '../engine/signing/fast-verify.js';

/**
 * The text of the first element of each name under `root` (as textOf gives
 * it: trimmed, null when absent or empty), in one walk of the tree instead
 * of one per name.
 */
export function textsOf<N extends string>(root: Element, names: readonly N[]): Record<N, string | null> {
  const out = Object.fromEntries(names.map((n) => [n, null])) as Record<N, string | null>;
  const wanted = new Set<string>(names);
  const walk = (el: Element) => {
    for (let n = el.firstChild; n && wanted.size; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const e = n as Element;
      if (wanted.has(e.tagName)) {
        wanted.delete(e.tagName);
        const t = e.textContent?.trim();
        out[e.tagName as N] = t ? t : null;
      }
      walk(e);
    }
  };
  walk(root);
  return out;
}
