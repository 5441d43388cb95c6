import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ParseOption, XmlDocument, XmlLibError, XsdValidator, type ErrorDetail } from 'libxml2-wasm';
import { DOCUMENT_KINDS, SCHEMA_FILES, type DocumentKind } from './schema-trees.generated.js';

/**
 * Validation against the official DGII schemas in schemas/dgii, with
 * libxml2 compiled to WebAssembly (no native addon to build).
 *
 * Each schema is compiled on first use and kept: compiling the e-CF schemas
 * takes milliseconds, validating a document much less.
 */

export interface SchemaValidation {
  readonly valid: boolean;
  /** libxml2's messages, each prefixed with its line: `line 3: Element 'X': …`. */
  readonly errors: string[];
}

/**
 * In-memory fixes for official files libxml2 cannot compile as published
 * (schemas/dgii/README.md, ../shared/taxauth/xsd/SOURCES.md). The files on
 * disk stay byte-for-byte DGII's.
 */
const FIXES: Partial<Record<DocumentKind, readonly (readonly [from: string, to: string])[]>> = {
  // The type is declared with a leading space in its name, so its uses do not resolve.
  ecf31: [['name=" IndicadorServicioTodoIncluidoType"', 'name="IndicadorServicioTodoIncluidoType"']],
  // .NET non-capturing groups, which XSD 1.0 regular expressions do not have.
  rfce: [['(?:', '(']],
  acecf: [['(?:', '(']],
};

/** No network and no external entities, whatever a document (or schema) asks for. */
const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET;

let schemaDir: string | undefined;

/**
 * schemas/dgii in the package root: the nearest folder above this module
 * that has a package.json (src/engine/xml under tsx or vitest,
 * dist/engine/xml after the build).
 */
export function schemaDirectory(): string {
  if (schemaDir) return schemaDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) break;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${dirname(fileURLToPath(import.meta.url))}; cannot find schemas/dgii`);
    dir = parent;
  }
  const found = join(dir, 'schemas', 'dgii');
  if (!existsSync(found)) throw new Error(`The DGII schemas are missing: ${found} does not exist`);
  schemaDir = found;
  return found;
}

/** The schema text as libxml2 gets it: BOM stripped, known defects fixed. */
export function schemaSource(kind: DocumentKind): string {
  const file = SCHEMA_FILES[kind];
  if (!file) throw new Error(`Unknown document kind: ${String(kind)}`);
  let text = readFileSync(join(schemaDirectory(), file), 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  for (const [from, to] of FIXES[kind] ?? []) text = text.replaceAll(from, to);
  return text;
}

interface Compiled {
  readonly validator: XsdValidator;
  /**
   * The parsed schema stays alive as long as the validator: a schema built
   * from a document may keep pointers into it.
   */
  readonly document: XmlDocument;
}

const compiled = new Map<DocumentKind, Compiled>();

function compile(kind: DocumentKind): Compiled {
  const cached = compiled.get(kind);
  if (cached) return cached;
  const url = join(schemaDirectory(), SCHEMA_FILES[kind]);
  const document = XmlDocument.fromString(schemaSource(kind), { url, option: PARSE_OPTIONS });
  let validator: XsdValidator;
  try {
    validator = XsdValidator.fromDoc(document);
  } catch (err) {
    document.dispose();
    throw new Error(`The ${kind} schema (${SCHEMA_FILES[kind]}) does not compile: ${messages(err).join('; ')}`, { cause: err });
  }
  const entry = { validator, document };
  compiled.set(kind, entry);
  return entry;
}

/** Compiles the schema of every kind now (e.g. at startup), so the first document does not pay for it. */
export function preloadSchemas(kinds: readonly DocumentKind[] = DOCUMENT_KINDS): void {
  for (const kind of kinds) compile(kind);
}

/** Frees every compiled schema (WebAssembly memory). They compile again on next use. */
export function releaseSchemas(): void {
  for (const { validator, document } of compiled.values()) {
    validator.dispose();
    document.dispose();
  }
  compiled.clear();
}

/**
 * Validates a document against its kind's DGII schema. A document that is
 * not well-formed is invalid too, with the parser's messages. Validate the
 * e-CF, RFCE, ANECF and Semilla after signing: their schemas require the
 * trailing Signature.
 */
export function validateAgainstSchema(kind: DocumentKind, xml: string | Buffer): SchemaValidation {
  const { validator } = compile(kind);
  let doc: XmlDocument;
  try {
    doc =
      typeof xml === 'string'
        ? XmlDocument.fromString(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml, { option: PARSE_OPTIONS })
        : XmlDocument.fromBuffer(xml, { option: PARSE_OPTIONS });
  } catch (err) {
    return { valid: false, errors: messages(err) };
  }
  try {
    validator.validate(doc);
    return { valid: true, errors: [] };
  } catch (err) {
    return { valid: false, errors: messages(err) };
  } finally {
    doc.dispose();
  }
}

function messages(err: unknown): string[] {
  if (err instanceof XmlLibError && err.details.length) return err.details.map(format);
  return [err instanceof Error ? err.message : String(err)];
}

const format = (d: ErrorDetail): string => `line ${d.line}: ${d.message.trim()}`;
