import { EngineError } from '../errors.js';
import { XmlShapeError, serialize, type XmlData } from './canonical.js';
import type { DocumentKind } from './schema-trees.generated.js';
import { validateAgainstSchema } from './xsd.js';

/**
 * The gate every document the engine builds passes before it is signed:
 * the canonical text is checked against its kind's official XSD. A document
 * the authority's schema refuses is never signed, stored or sent, and the
 * transaction that numbered it rolls back, so no e-NCF is burned.
 *
 * A refusal here means our builder and the schema disagree (validation
 * should have caught the input first), so it is an internal defect: the
 * error says so, and adapters log it as one.
 */
export class SchemaMismatch extends EngineError {
  readonly documentKind: DocumentKind;
  /** libxml2's messages, each naming the element and, for a bad value, the value. */
  readonly problems: readonly string[];
  readonly defect = true;
  constructor(kind: DocumentKind, problems: readonly string[]) {
    super(
      'validation',
      'Document.SchemaMismatch',
      `The ${kind.toUpperCase()} built from this request does not pass the authority's schema, so it was not signed and no number was used: ${problems.join('; ')}. ` +
        'This is a defect of the appliance (validation should have refused the input); please report it with this message.',
    );
    this.name = 'SchemaMismatch';
    this.documentKind = kind;
    this.problems = problems;
  }
}

/** True for errors that mean the appliance itself is wrong, however the request looked. */
export const isDefect = (e: unknown): boolean => (e as { defect?: unknown } | null)?.defect === true;

/*
 * Each schema ends its root with an xs:any (processContents="skip") where the
 * Signature goes, required for the e-CF, RFCE and ANECF. An empty element in
 * the XMLDSig namespace stands in for it, so the unsigned text is checked
 * exactly as it will be signed.
 */
const PLACEHOLDER = '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"></Signature>';

/** Throws SchemaMismatch unless `canonical` (unsigned, as serialize wrote it) is valid for `kind`. */
export function assertSignable(kind: DocumentKind, canonical: string): void {
  const close = canonical.lastIndexOf('</');
  const withPlaceholder = close < 0 ? canonical : canonical.slice(0, close) + PLACEHOLDER + canonical.slice(close);
  // libxml2-wasm reads a Buffer in a third less time than a JS string.
  const result = validateAgainstSchema(kind, Buffer.from(withPlaceholder, 'utf8'));
  if (!result.valid) {
    // The canonical text is one line: libxml2's "line 1:" prefix only adds noise.
    throw new SchemaMismatch(kind, result.errors.map((m) => m.replace(/^line \d+: /, '')));
  }
}

/** The document in canonical form, ready to sign: serialize, then the gate. */
export function signable(kind: DocumentKind, data: XmlData): string {
  let canonical: string;
  try {
    canonical = serialize(kind, data);
  } catch (e) {
    // The data does not even fit the schema's tree: the same defect, found one step earlier.
    if (e instanceof XmlShapeError) throw new SchemaMismatch(kind, [e.message]);
    throw e;
  }
  assertSignable(kind, canonical);
  return canonical;
}
