import { SCHEMA_TREES, type DocumentKind, type SchemaNode } from './schema-trees.generated.js';

/**
 * Writes DGII documents straight into Canonical XML 1.0 form (inclusive C14N,
 * no comments), the form the signature digests. Signing then needs no
 * re-parse and no canonicaliser: the bytes written are the bytes hashed, and
 * the bytes sent (DGII wants the signed document unchanged, NOTES §5).
 *
 * Element order comes from the schema (xs:sequence), not from the data's key
 * order. Absent values (undefined, null, '') are left out, and so is an
 * element whose children are all absent: the authority rejects empty
 * elements (NOTES §12.1). Minimum occurrences and value formats are not
 * checked here; XSD validation (./xsd.ts) does that.
 */

export type XmlData = {
  [element: string]: string | XmlData | readonly (string | XmlData)[] | undefined | null;
};

export interface SerializeOptions {
  /**
   * Attributes of the root element, e.g. the `xmlns:xsi` and `xmlns:xsd`
   * declarations .NET writes. Written in C14N order whatever the key order.
   */
  readonly rootAttributes?: Readonly<Record<string, string>>;
}

/**
 * The data does not fit the schema: an element the schema does not have
 * there, too many repetitions, or a value of the wrong shape. A programming
 * error in the code that built the data, not a user input problem.
 * `path` is XPath-like, 1-based: `ECF/DetallesItems/Item[3]/NombreItem`.
 */
export class XmlShapeError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'XmlShapeError';
    this.path = path;
  }
}

/** A schema node prepared for writing: tags built once, children looked up by name. */
interface Prepared {
  readonly name: string;
  readonly max: number;
  readonly open: string;
  readonly close: string;
  /** null for simple content. */
  readonly children: readonly Prepared[] | null;
  readonly index: ReadonlyMap<string, Prepared> | null;
}

function prepare(node: Pick<SchemaNode, 'name' | 'max' | 'children'>): Prepared {
  const children = node.children ? node.children.map(prepare) : null;
  return {
    name: node.name,
    max: node.max === 'unbounded' ? Infinity : node.max,
    open: `<${node.name}>`,
    close: `</${node.name}>`,
    children,
    index: children ? new Map(children.map((c) => [c.name, c])) : null,
  };
}

const prepared = new Map<DocumentKind, Prepared>();

function preparedTree(kind: DocumentKind): Prepared {
  let tree = prepared.get(kind);
  if (!tree) {
    const schema = SCHEMA_TREES[kind];
    if (!schema) throw new Error(`Unknown document kind: ${String(kind)}`);
    tree = prepare({ name: schema.root, max: 1, children: schema.children });
    prepared.set(kind, tree);
  }
  return tree;
}

/**
 * The document as canonical XML: no declaration, no whitespace between
 * elements, start and end tags for every element. Signing appends the
 * Signature as the root's last child; it is not part of `data`.
 */
export function serialize(kind: DocumentKind, data: XmlData, options: SerializeOptions = {}): string {
  const root = preparedTree(kind);
  if (!isPlainObject(data)) throw new XmlShapeError(root.name, 'the document data must be an object of child elements');
  const attributes = options.rootAttributes ? canonicalAttributes(root.name, options.rootAttributes) : '';
  return `<${root.name}${attributes}>${writeChildren(root, data, root.name)}${root.close}`;
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null || v === '';

function isPlainObject(v: unknown): v is XmlData {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The children of a complex element, in schema order; '' when none is present. */
function writeChildren(node: Prepared, data: XmlData, path: string): string {
  const index = node.index!;
  // Keys the schema does not have at this place are mistakes, unless their
  // value is absent: builders shared between types may set a field that only
  // some types have to undefined.
  for (const key in data) {
    if (!index.has(key) && !isAbsent(data[key])) {
      const hint = key === 'Signature' ? ' (signing adds the Signature; it is not part of the data)' : '';
      throw new XmlShapeError(`${path}/${key}`, `the schema has no element ${key} inside ${node.name}${hint}`);
    }
  }
  let out = '';
  for (const child of node.children!) {
    const value = data[child.name];
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      if (child.max === 1) {
        throw new XmlShapeError(`${path}/${child.name}`, `occurs at most once, but the data holds an array`);
      }
      let count = 0;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as unknown;
        if (isAbsent(item)) continue;
        const written = writeElement(child, item, path, i + 1);
        if (written === '') continue;
        if (++count > child.max) {
          throw new XmlShapeError(`${path}/${child.name}`, `occurs at most ${child.max} times, but the data holds more`);
        }
        out += written;
      }
    } else {
      out += writeElement(child, value, path, 0);
    }
  }
  return out;
}

/**
 * Written as an empty element where a schema demands an element that may
 * have nothing in it (the RFCE's Comprador for an anonymous buyer), against
 * the general rule of leaving empty elements out.
 */
export const KEEP_EMPTY: XmlData = Object.freeze({});

/** One element; '' when it has children and all of them are absent. `position` is 1-based, 0 for a single value. */
function writeElement(node: Prepared, value: unknown, parentPath: string, position: number): string {
  if (value === KEEP_EMPTY && node.children) return node.open + node.close;
  if (node.children) {
    const path = position ? `${parentPath}/${node.name}[${position}]` : `${parentPath}/${node.name}`;
    if (!isPlainObject(value)) {
      throw new XmlShapeError(path, `has child elements, so its value must be an object, not ${describe(value)}`);
    }
    const inner = writeChildren(node, value, path);
    return inner === '' ? '' : node.open + inner + node.close;
  }
  if (typeof value !== 'string') {
    const path = position ? `${parentPath}/${node.name}[${position}]` : `${parentPath}/${node.name}`;
    throw new XmlShapeError(path, `has simple content, so its value must be a string, not ${describe(value)}`);
  }
  if (!TEXT_NEEDS_WORK.test(value)) return node.open + value + node.close;
  const path = position ? `${parentPath}/${node.name}[${position}]` : `${parentPath}/${node.name}`;
  return node.open + escapeText(value, path) + node.close;
}

const describe = (v: unknown): string =>
  Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

// ---- escaping, exactly as C14N 1.0 writes character data and attribute values

/**
 * Characters XML 1.0 cannot carry at all (C0 controls other than TAB, LF, CR;
 * U+FFFE, U+FFFF; unpaired surrogates). Written out they would make the
 * document not well-formed, so they are refused rather than escaped.
 */
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One cheap test decides whether a value needs any work; almost none do. */
const TEXT_NEEDS_WORK = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

/** Character data as C14N writes it: & < > and CR escaped; quotes, TAB, LF and non-ASCII as they are. */
export function escapeText(value: string, where = 'text'): string {
  if (!TEXT_NEEDS_WORK.test(value)) return value;
  if (NOT_XML_CHAR.test(value)) {
    throw new XmlShapeError(where, 'holds a character XML 1.0 does not allow (a control character or an unpaired surrogate)');
  }
  return value.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!);
}

const ATTR_NEEDS_WORK = /[&<"\t\n\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const ATTR_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

/** An attribute value as C14N writes it (inside double quotes): & < " TAB LF CR escaped; > as it is. */
export function escapeAttribute(value: string, where = 'attribute'): string {
  if (!ATTR_NEEDS_WORK.test(value)) return value;
  if (NOT_XML_CHAR.test(value)) {
    throw new XmlShapeError(where, 'holds a character XML 1.0 does not allow (a control character or an unpaired surrogate)');
  }
  return value.replace(/[&<"\t\n\r]/g, (c) => ATTR_ESCAPES[c]!);
}

// ---- root attributes in C14N order

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
/** ASCII QNames only: the attributes anyone puts on a DGII root are xmlns:xsi, xmlns:xsd and the like. */
const QNAME = /^[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?$/;

/** Compares by Unicode code point, the order C14N sorts by (JS `<` compares UTF-16 units). */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; ) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

/**
 * ` name="value"` pairs for the root: namespace declarations first (the
 * default namespace, then by prefix), then the other attributes by namespace
 * URI and then local name, which is the order C14N 1.0 prescribes.
 */
function canonicalAttributes(root: string, attributes: Readonly<Record<string, string>>): string {
  const namespaces: { prefix: string; value: string }[] = [];
  const bound = new Map<string, string>([['xml', XML_NS]]);
  const others: { qname: string; prefix: string; local: string; value: string }[] = [];

  for (const [qname, value] of Object.entries(attributes)) {
    const where = `${root}/@${qname}`;
    if (!QNAME.test(qname)) throw new XmlShapeError(where, 'is not an attribute name this serializer writes (ASCII QName)');
    if (typeof value !== 'string') throw new XmlShapeError(where, `must be a string, not ${describe(value)}`);
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    const local = colon < 0 ? qname : qname.slice(colon + 1);
    if (qname === 'xmlns') {
      // xmlns="" on the root declares nothing and C14N drops it. A real default
      // namespace would move every element out of no-namespace, where the DGII
      // schemas (which have no targetNamespace) expect them.
      if (value === '') continue;
      throw new XmlShapeError(where, 'a default namespace would take the elements out of the no-namespace the DGII schemas use');
    }
    if (prefix === 'xmlns') {
      if (local === 'xml' || local === 'xmlns') throw new XmlShapeError(where, `the ${local} prefix is reserved`);
      if (value === '') throw new XmlShapeError(where, 'XML 1.0 cannot undeclare a prefix');
      if (value === XML_NS || value === XMLNS_NS) throw new XmlShapeError(where, 'binds a reserved namespace name');
      namespaces.push({ prefix: local, value });
      bound.set(local, value);
    } else {
      others.push({ qname, prefix, local, value });
    }
  }

  const resolved = others.map((a) => {
    const uri = a.prefix === '' ? '' : bound.get(a.prefix);
    if (uri === undefined) throw new XmlShapeError(`${root}/@${a.qname}`, `the prefix ${a.prefix} is not declared in rootAttributes`);
    return { ...a, uri };
  });
  for (let i = 1; i < resolved.length; i++) {
    for (let j = 0; j < i; j++) {
      if (resolved[i]!.uri === resolved[j]!.uri && resolved[i]!.local === resolved[j]!.local) {
        throw new XmlShapeError(`${root}/@${resolved[i]!.qname}`, `names the same attribute as ${resolved[j]!.qname}`);
      }
    }
  }

  namespaces.sort((a, b) => compareCodePoints(a.prefix, b.prefix));
  resolved.sort((a, b) => compareCodePoints(a.uri, b.uri) || compareCodePoints(a.local, b.local));
  let out = '';
  for (const ns of namespaces) out += ` xmlns:${ns.prefix}="${escapeAttribute(ns.value, `${root}/@xmlns:${ns.prefix}`)}"`;
  for (const a of resolved) out += ` ${a.qname}="${escapeAttribute(a.value, `${root}/@${a.qname}`)}"`;
  return out;
}
