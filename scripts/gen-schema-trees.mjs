#!/usr/bin/env node
/**
 * Reads the official DGII XSDs in schemas/dgii and writes
 * src/engine/xml/schema-trees.generated.ts: per document kind, the root
 * element and its element tree in xs:sequence order (name, minOccurs,
 * maxOccurs, children for complex content).
 *
 *   node scripts/gen-schema-trees.mjs          write the file
 *   node scripts/gen-schema-trees.mjs --check  exit 1 if the committed file is stale
 *
 * The schemas use a small subset of XSD (anonymous complexTypes holding one
 * xs:sequence, named simpleTypes, one trailing xs:any for the signature).
 * Anything outside that subset (choice, all, group, ref, attributes, mixed or
 * simple/complex content extensions) stops the script with an error rather
 * than producing a tree that silently misses it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMA_DIR = join(ROOT, 'schemas', 'dgii');
const OUT = join(ROOT, 'src', 'engine', 'xml', 'schema-trees.generated.ts');
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';

/** Document kind → schema file. The order here is the order of the output. */
const FILES = [
  ['ecf31', 'e-CF 31 v.1.0.xsd'],
  ['ecf32', 'e-CF 32 v.1.0.xsd'],
  ['ecf33', 'e-CF 33 v.1.0.xsd'],
  ['ecf34', 'e-CF 34 v.1.0.xsd'],
  ['ecf41', 'e-CF 41 v.1.0.xsd'],
  ['ecf43', 'e-CF 43 v.1.0.xsd'],
  ['ecf44', 'e-CF 44 v.1.0.xsd'],
  ['ecf45', 'e-CF 45 v.1.0.xsd'],
  ['ecf46', 'e-CF 46 v.1.0.xsd'],
  ['ecf47', 'e-CF 47 v.1.0.xsd'],
  ['rfce', 'RFCE 32 v.1.0.xsd'],
  ['arecf', 'ARECF v1.0.xsd'],
  ['acecf', 'ACECF v.1.0.xsd'],
  ['anecf', 'ANECF v.1.0.xsd'],
  ['semilla', 'Semilla v.1.0.xsd'],
];

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  trimValues: true,
  // Comments and processing instructions carry no structure.
  commentPropName: false,
});

/** One parsed node as { tag, attrs, children } (preserveOrder's shape is awkward to walk). */
function normalise(raw) {
  const out = [];
  for (const entry of raw) {
    const tag = Object.keys(entry).find((k) => k !== ':@');
    if (tag === undefined || tag === '#text' || tag.startsWith('?')) continue;
    out.push({ tag, attrs: entry[':@'] ?? {}, children: normalise(entry[tag]) });
  }
  return out;
}

function fail(file, message) {
  throw new Error(`${file}: ${message}`);
}

function occurs(file, attrs, attr) {
  const raw = attrs[attr];
  if (raw === undefined) return 1;
  const v = String(raw).trim();
  if (v === 'unbounded') {
    if (attr === 'minOccurs') fail(file, `minOccurs="unbounded" is not valid`);
    return 'unbounded';
  }
  if (!/^\d+$/.test(v)) fail(file, `${attr}="${raw}" is not a number`);
  return Number(v);
}

function parseSchema(kind, file) {
  let text = readFileSync(join(SCHEMA_DIR, file), 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const doc = normalise(parser.parse(text));
  const schema = doc.find((n) => n.tag.endsWith('schema'));
  if (!schema) fail(file, 'no schema element');

  // The XSD prefix is whatever the file binds to the XSD namespace (DGII uses xs).
  const prefixAttr = Object.keys(schema.attrs).find((a) => a.startsWith('xmlns:') && schema.attrs[a] === XSD_NS);
  if (!prefixAttr || schema.tag !== `${prefixAttr.slice(6)}:schema`) fail(file, 'the schema element is not in the XSD namespace');
  const p = `${prefixAttr.slice(6)}:`;
  if (schema.attrs.targetNamespace !== undefined) fail(file, 'has a targetNamespace; the serializer writes no-namespace elements');

  // Named types, by trimmed name: e-CF 31 declares " IndicadorServicioTodoIncluidoType"
  // with a leading space (a known defect that libxml2 rejects; we only need the name).
  const complexTypes = new Map();
  const simpleTypes = new Set();
  const roots = [];
  for (const n of schema.children) {
    if (n.tag === `${p}complexType`) complexTypes.set(String(n.attrs.name ?? '').trim(), n);
    else if (n.tag === `${p}simpleType`) simpleTypes.add(String(n.attrs.name ?? '').trim());
    else if (n.tag === `${p}element`) roots.push(n);
    else if (n.tag !== `${p}annotation`) fail(file, `unsupported top-level ${n.tag}`);
  }
  if (roots.length !== 1) fail(file, `expected one global element, found ${roots.length}`);
  const root = roots[0];

  /** The complexType node an element declares inline or by type=, or null for simple content. */
  function complexTypeOf(el, path) {
    const inline = el.children.filter((c) => c.tag === `${p}complexType`);
    const other = el.children.filter((c) => c.tag !== `${p}complexType` && c.tag !== `${p}annotation` && c.tag !== `${p}simpleType`);
    if (other.length) fail(file, `${path}: unsupported ${other[0].tag} inside an element`);
    if (el.attrs.ref !== undefined) fail(file, `${path}: element ref= is not supported`);
    if (inline.length) return inline[0];
    const type = el.attrs.type === undefined ? undefined : String(el.attrs.type).trim();
    if (type === undefined) {
      if (el.children.some((c) => c.tag === `${p}simpleType`)) return null;
      fail(file, `${path}: element without a type`);
    }
    if (type.startsWith(p)) return null;
    if (complexTypes.has(type)) return complexTypes.get(type);
    if (simpleTypes.has(type)) return null;
    fail(file, `${path}: type "${type}" is not declared in the schema`);
  }

  /** Child elements of a complexType, flattening nested sequences; notes a trailing xs:any. */
  function sequenceOf(ct, path, isRoot) {
    if (ct.attrs.mixed === 'true') fail(file, `${path}: mixed content is not supported`);
    const parts = ct.children.filter((c) => c.tag !== `${p}annotation`);
    if (parts.length !== 1 || parts[0].tag !== `${p}sequence`) {
      fail(file, `${path}: expected exactly one xs:sequence, found ${parts.map((c) => c.tag).join(', ') || 'nothing'}`);
    }
    const seq = parts[0];
    if (occurs(file, seq.attrs, 'minOccurs') !== 1 || occurs(file, seq.attrs, 'maxOccurs') !== 1) {
      fail(file, `${path}: repeated xs:sequence is not supported`);
    }
    const children = [];
    let any = null;
    const items = seq.children.filter((c) => c.tag !== `${p}annotation`);
    items.forEach((c, i) => {
      if (c.tag === `${p}element`) {
        children.push(elementNode(c, `${path}/${c.attrs.name}`));
      } else if (c.tag === `${p}any`) {
        if (!isRoot || i !== items.length - 1) fail(file, `${path}: xs:any is only supported as the last particle of the root`);
        any = { min: occurs(file, c.attrs, 'minOccurs'), max: occurs(file, c.attrs, 'maxOccurs'), processContents: c.attrs.processContents ?? 'strict' };
      } else {
        fail(file, `${path}: unsupported ${c.tag} in a sequence`);
      }
    });
    return { children, any };
  }

  function elementNode(el, path) {
    const name = String(el.attrs.name ?? '');
    if (!/^[A-Za-z_][\w.-]*$/.test(name)) fail(file, `${path}: element name "${name}" is not a plain NCName`);
    const node = { name, min: occurs(file, el.attrs, 'minOccurs'), max: occurs(file, el.attrs, 'maxOccurs') };
    const ct = complexTypeOf(el, path);
    if (ct) {
      const { children } = sequenceOf(ct, path, false);
      const seen = new Set();
      for (const c of children) {
        // The serializer keys data by element name; a repeated name would be ambiguous.
        if (seen.has(c.name)) fail(file, `${path}: element ${c.name} appears twice in one sequence`);
        seen.add(c.name);
      }
      node.children = children;
    }
    return node;
  }

  const rootName = String(root.attrs.name);
  const rootCt = complexTypeOf(root, rootName);
  if (!rootCt) fail(file, 'the root element has simple content');
  const { children, any } = sequenceOf(rootCt, rootName, true);
  return { kind, file, root: rootName, signatureSlot: any !== null, signatureRequired: any !== null && any.min > 0, any, children };
}

// ---- output ----------------------------------------------------------------

const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const maxLiteral = (m) => (m === 'unbounded' ? `'unbounded'` : String(m));

function writeNodes(nodes, indent) {
  const pad = ' '.repeat(indent);
  let s = '[\n';
  for (const n of nodes) {
    const head = `${pad}  { name: ${q(n.name)}, min: ${n.min}, max: ${maxLiteral(n.max)}`;
    s += n.children ? `${head}, children: ${writeNodes(n.children, indent + 2)} },\n` : `${head} },\n`;
  }
  return `${s}${pad}]`;
}

function generate() {
  const trees = FILES.map(([kind, file]) => parseSchema(kind, file));
  const sources = FILES.map(([, file]) => {
    const sha = createHash('sha256').update(readFileSync(join(SCHEMA_DIR, file))).digest('hex');
    return ` *   ${sha}  ${file}`;
  });
  let s = `/**
 * GENERATED by scripts/gen-schema-trees.mjs from schemas/dgii. Do not edit;
 * run \`npm run gen:schemas\` after changing the schemas.
 *
 * Per document kind: the root element, whether its sequence ends with the
 * xs:any that holds the XMLDSig Signature, and the element tree in
 * xs:sequence order. Elements without children have simple content.
 *
 * Sources (sha256):
${sources.join('\n')}
 */

export const DOCUMENT_KINDS = [${FILES.map(([k]) => q(k)).join(', ')}] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export type SchemaNode = {
  name: string;
  min: number;
  max: number | 'unbounded';
  children?: readonly SchemaNode[];
};

export type SchemaTree = {
  root: string;
  /** The root's sequence ends with xs:any (processContents="skip"): the Signature goes there. */
  signatureSlot: boolean;
  /** That xs:any has minOccurs >= 1, so the schema rejects an unsigned document. */
  signatureRequired: boolean;
  children: readonly SchemaNode[];
};

/** The schema file (in schemas/dgii) of each kind. */
export const SCHEMA_FILES: Record<DocumentKind, string> = {
${FILES.map(([k, f]) => `  ${k}: ${q(f)},`).join('\n')}
};

export const SCHEMA_TREES: Record<DocumentKind, SchemaTree> = {
`;
  for (const t of trees) {
    s += `  ${t.kind}: {\n    root: ${q(t.root)},\n    signatureSlot: ${t.signatureSlot},\n    signatureRequired: ${t.signatureRequired},\n    children: ${writeNodes(t.children, 4)},\n  },\n`;
  }
  s += '};\n';
  return s;
}

const output = generate();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUT, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== output) {
    console.error(`${OUT} is out of date; run npm run gen:schemas`);
    process.exit(1);
  }
  console.log('schema trees are up to date');
} else {
  writeFileSync(OUT, output);
  console.log(`wrote ${OUT}`);
}
