import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ParseOption, XmlC14NMode, XmlDocument } from 'libxml2-wasm';
import { serialize, type SerializeOptions, type XmlData } from '../../../src/engine/xml/canonical.js';
import { SCHEMA_TREES, type DocumentKind, type SchemaNode } from '../../../src/engine/xml/schema-trees.generated.js';
import { DUMMY_SIGNATURE, ecf31, withDummySignature, XMLNS_XSD, XMLNS_XSI } from './documents.js';

/**
 * The serializer claims its output is already Canonical XML 1.0. Each case
 * gives the same document written non-canonically (declaration, indentation,
 * other quoting and escaping, character references, CDATA, attributes out of
 * order, empty-element tags) and checks that canonicalising it yields exactly
 * the serializer's bytes.
 *
 * Indentation is whitespace text to C14N, so the non-canonical form is parsed
 * dropping blank text nodes (xmllint --noblanks), as a signer that does not
 * preserve whitespace does (NOTES §5).
 */

interface Case {
  readonly name: string;
  readonly kind: DocumentKind;
  readonly data: XmlData;
  readonly options?: SerializeOptions;
  /** Compare with the dummy Signature appended, as signing places it. */
  readonly signed?: boolean;
  readonly nonCanonical: string;
}

const cases: Case[] = [
  {
    name: 'ARECF with root namespace declarations and attributes, text with & < > ñ and quotes',
    kind: 'arecf',
    data: {
      DetalleAcusedeRecibo: {
        Version: '1.0',
        RNCEmisor: '130862346',
        RNCComprador: '131880681',
        eNCF: 'E310000000001',
        Estado: `Peña & "hijos" 'SRL' <a> > b`,
        FechaHoraAcuseRecibo: '15-01-2026 12:05:00',
      },
    },
    options: {
      rootAttributes: {
        'xmlns:xsi': XMLNS_XSI,
        'xmlns:xsd': XMLNS_XSD,
        zeta: 'tab\there, line\nbreak, cr\rend & "quoted" <x> \'s\'',
        'xsi:noNamespaceSchemaLocation': 'ARECF v1.0.xsd',
        alpha: 'ñandú',
      },
    },
    nonCanonical: `<?xml version="1.0" encoding="utf-8"?>
<ARECF  xsi:noNamespaceSchemaLocation = 'ARECF v1.0.xsd'
        zeta='tab&#9;here, line&#10;break, cr&#13;end &amp; "quoted" &lt;x> &apos;s&apos;'
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
        alpha="&#xF1;and&#250;"
        xmlns:xsd='http://www.w3.org/2001/XMLSchema'>
  <DetalleAcusedeRecibo>
    <Version>1.0</Version>
    <RNCEmisor>130862346</RNCEmisor>
    <RNCComprador>131880681</RNCComprador>
    <eNCF>E310000000001</eNCF>
    <Estado>Pe&#241;a &amp; &quot;hijos&quot; &apos;SRL&apos; <![CDATA[<a>]]> &gt; b</Estado>
    <FechaHoraAcuseRecibo >15-01-2026 12:05:00</FechaHoraAcuseRecibo >
  </DetalleAcusedeRecibo>
</ARECF>
`,
  },
  {
    name: 'RFCE with CR in text and the Signature written as an empty-element tag',
    kind: 'rfce',
    signed: true,
    data: {
      Encabezado: {
        Version: '1.0',
        IdDoc: { TipoeCF: '32', eNCF: 'E320000000007', TipoIngresos: '01', TipoPago: '1' },
        Emisor: { RNCEmisor: '130862346', RazonSocialEmisor: 'Ferretería Ñoño & Hijos', FechaEmision: '15-01-2026' },
        Comprador: { RazonSocialComprador: 'José "Pepe" Núñez\r\nSegunda línea' },
        Totales: { MontoExento: '500.00', MontoTotal: '500.00' },
        CodigoSeguridadeCF: 'a1B2c3',
      },
    },
    nonCanonical: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<RFCE>
\t<Encabezado>
\t\t<Version>1.0</Version>
\t\t<IdDoc>
\t\t\t<TipoeCF>32</TipoeCF>
\t\t\t<eNCF>E320000000007</eNCF>
\t\t\t<TipoIngresos>01</TipoIngresos>
\t\t\t<TipoPago>1</TipoPago>
\t\t</IdDoc>
\t\t<Emisor>
\t\t\t<RNCEmisor>130862346</RNCEmisor>
\t\t\t<RazonSocialEmisor>Ferreter&#xED;a &#xD1;o&#xF1;o &#38; Hijos</RazonSocialEmisor>
\t\t\t<FechaEmision>15-01-2026</FechaEmision>
\t\t</Emisor>
\t\t<Comprador>
\t\t\t<RazonSocialComprador>Jos&#233; "Pepe" N&#250;&#241;ez&#13;
Segunda l&#237;nea</RazonSocialComprador>
\t\t</Comprador>
\t\t<Totales>
\t\t\t<MontoExento>500.00</MontoExento>
\t\t\t<MontoTotal>500.00</MontoTotal>
\t\t</Totales>
\t\t<CodigoSeguridadeCF>a1B2c3</CodigoSeguridadeCF>
\t</Encabezado>
\t<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>
</RFCE>
`,
  },
  {
    name: 'Semilla with quotes and apostrophes, CRLF line ends in the source',
    kind: 'semilla',
    signed: true,
    data: { valor: `"sem'illa" & <valor> á`, fecha: '2026-01-15T12:00:00-04:00' },
    nonCanonical:
      "<?xml version='1.0'?>\r\n<SemillaModel>\r\n  <valor>&quot;sem'illa&quot; &amp; &lt;valor&gt; \u00e1</valor>\r\n" +
      '  <fecha>2026-01-15T12:00:00-04:00</fecha>\r\n  <Signature xmlns="http://www.w3.org/2000/09/xmldsig#" />\r\n</SemillaModel>\r\n',
  },
  {
    name: 'e-CF 31 with three lines, written by a deliberately sloppy writer',
    kind: 'ecf31',
    signed: true,
    data: ecf31(3),
    options: { rootAttributes: { 'xmlns:xsd': XMLNS_XSD, 'xmlns:xsi': XMLNS_XSI } },
    nonCanonical: sloppy('ecf31', ecf31(3), `xmlns:xsi='${XMLNS_XSI}' xmlns:xsd='${XMLNS_XSD}'`),
  },
];

/**
 * Indented XML with a declaration; text with `<` as a CDATA section, other
 * text with decimal character references for & < CR and every non-ASCII
 * character, quotes as entities; end tags with a space; a self-closing
 * Signature. Walks the schema tree only to know what is
 * an element; it shares no code with the serializer.
 */
function sloppy(kind: DocumentKind, data: XmlData, rootAttrs: string): string {
  const text = (s: string) =>
    s.includes('<') && !s.includes(']]>') && !s.includes('\r')
      ? `<![CDATA[${s}]]>`
      : s
          .replace(/&/g, '&#38;')
          .replace(/</g, '&#60;')
          .replace(/"/g, '&quot;')
          .replace(/\r/g, '&#13;')
          .replace(/[^\x00-\x7f]/gu, (c) => `&#${c.codePointAt(0)};`);
  const write = (nodes: readonly SchemaNode[], value: XmlData, depth: number): string => {
    let out = '';
    for (const node of nodes) {
      const v = value[node.name];
      for (const item of Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v]) {
        const pad = '\n' + '    '.repeat(depth);
        if (typeof item === 'string') out += `${pad}<${node.name}>${text(item)}</${node.name} >`;
        else out += `${pad}<${node.name}>${write(node.children!, item as XmlData, depth + 1)}${pad}</${node.name}>`;
      }
    }
    return out;
  };
  const tree = SCHEMA_TREES[kind];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${tree.root} ${rootAttrs}>${write(tree.children, data, 1)}\n    <Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>\n</${tree.root}>\n`;
}

const expected = (c: Case): string => {
  const xml = serialize(c.kind, c.data, c.options);
  return c.signed ? withDummySignature(xml) : xml;
};

const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;

// An independent canonicaliser; skipped where xmllint is not installed (Debian: apt-get install libxml2-utils).
describe.skipIf(!hasXmllint)('serializer output equals xmllint --c14n of the same document written non-canonically (skipped without xmllint)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const canonical = execFileSync('xmllint', ['--noblanks', '--c14n', '-'], { input: c.nonCanonical }).toString('utf8');
      expect(canonical).toBe(expected(c));
    });
  }
});


describe('serializer output equals libxml2-wasm C14N 1.0 (without comments)', () => {
  const canonicalise = (xml: string) => {
    const doc = XmlDocument.fromString(xml, { option: ParseOption.XML_PARSE_NOBLANKS | ParseOption.XML_PARSE_NONET });
    try {
      return doc.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_1_0, withComments: false });
    } finally {
      doc.dispose();
    }
  };

  for (const c of cases) {
    it(c.name, () => {
      // A comment in the source must vanish: the signature uses C14N without comments.
      const withComment = c.nonCanonical.replace(/\?>/, '?>\n<!-- written by hand -->');
      expect(canonicalise(withComment)).toBe(expected(c));
    });
  }

  it('and the canonical output is a fixed point', () => {
    for (const c of cases) expect(canonicalise(expected(c))).toBe(expected(c));
  });

  it('the dummy Signature is in canonical form', () => {
    expect(DUMMY_SIGNATURE).toBe(canonicalise(DUMMY_SIGNATURE.replace('></Signature>', '/>')));
  });
});
