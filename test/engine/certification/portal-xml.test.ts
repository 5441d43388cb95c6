import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signPortalXml, signPortalXmlWithP12 } from '../../../src/engine/certification/portal-xml.js';
import { getCertification, startCertification } from '../../../src/engine/certification/state.js';
import { openEngine } from '../../../src/engine/engine.js';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import { ValidationError } from '../../../src/engine/errors.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import { makeIdentity, makeP12 } from '../../certs.js';
import { cliFor } from '../../cli-runner.js';
import { seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { verifyWithXmlCrypto, verifyWithXmlsec1 } from '../signing/verify-tools.js';

const identity = makeIdentity({ commonName: 'JOSÉ REPRESENTANTE' });
const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));

/** Signs, checks with xmlsec1, and checks that only the Signature's bytes were added. */
function signAndCheck(xml: string | Buffer) {
  const input = Buffer.isBuffer(xml) ? xml : Buffer.from(xml, 'utf8');
  const signed = signPortalXml(input, key);
  const verdict = verifyWithXmlsec1(signed.bytes.toString('utf8'), identity.certPem);
  expect(verdict.ok, `xmlsec1 refused:\n${verdict.output}\n${signed.bytes.toString('utf8')}`).toBe(true);
  if (!signed.expandedEmptyRoot) {
    const outside = Buffer.concat([signed.bytes.subarray(0, signed.insertedAt), signed.bytes.subarray(signed.insertedAt + signed.insertedLength)]);
    expect(outside.equals(input)).toBe(true);
  }
  return signed;
}

const DECLARACION =
  '<?xml version="1.0" encoding="utf-8"?>\n' +
  '<DeclaracionJurada xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\n' +
  '  <RNC>131880681</RNC>\n' +
  '  <Representante>\n' +
  '    <Cedula>00112345678</Cedula>\n' +
  '    <Nombre>María Núñez Peña</Nombre>\n' +
  '  </Representante>\n' +
  '  <Condiciones aceptadas="true" version="2">Acepto las condiciones &amp; términos</Condiciones>\n' +
  '</DeclaracionJurada>\n';

describe('signing an opaque portal XML (Pasos 1 and 13)', () => {
  it('xmlsec1 verifies files of several shapes, and no byte outside the Signature changes', () => {
    const shapes: Record<string, string> = {
      'declaration and pretty-printed whitespace': DECLARACION,
      'a default namespace and prefixed ones': '<Postulacion xmlns="urn:dgii:postulacion" xmlns:p="urn:p"><p:Datos p:tipo="PROPIO">x</p:Datos><URLRecepcion>https://ecf.example.do/fe/recepcion/api/ecf</URLRecepcion></Postulacion>',
      'attributes in no particular order, quotes of both kinds, xml:lang': `<Solicitud z="último" a='1' m="a&quot;b" xml:lang="es"><Campo b="2" a="1"/></Solicitud>`,
      'CRLF line ends': DECLARACION.replace(/\n/g, '\r\n'),
      'accents and ñ in UTF-8, a BOM': '\uFEFF<?xml version="1.0" encoding="UTF-8"?><Declaración><Razón>Compañía Eléctrica Ñandú, S.R.L.</Razón><Nota>Año 2026 — “citas”</Nota></Declaración>',
      'comments, a processing instruction and CDATA': '<?xml version="1.0"?>\n<!-- generado por el portal -->\n<Doc><!-- dentro --><?marca x?><Texto><![CDATA[<b>negrita</b> & más]]></Texto></Doc>\n<!-- fin -->\n',
      'tabs and newlines inside attribute values': '<Doc a="uno\tdos\nTres"><x/></Doc>',
    };
    for (const [shape, xml] of Object.entries(shapes)) {
      const signed = signAndCheck(xml);
      expect(signed.bytes.toString('utf8'), shape).toMatch(/<\/Signature>\s*<\/[^>]+>\s*(?:<!--[^]*-->\s*)?$/);
      // xml-crypto, a second opinion, skips what its C14N lacks (inherited xml:lang, processing instructions) and a BOM.
      if (!/xml:lang|<\?marca|^\uFEFF/.test(xml)) expect(verifyWithXmlCrypto(signed.bytes.toString('utf8'), identity.certPem), shape).toBe(true);
    }
  });

  it('puts the Signature just before the root’s end tag, as NOTES §5 writes it', () => {
    const signed = signAndCheck(DECLARACION);
    const text = signed.bytes.toString('utf8');
    expect(text.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<DeclaracionJurada ')).toBe(true);
    expect(text).toContain('</Condiciones>\n<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315">');
    expect(text).toContain('<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform></Transforms>');
    expect(text).toContain('<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256">');
    expect(text).toContain('<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256">');
    expect(text).toContain(`<X509Certificate>${key.certificateBase64}</X509Certificate>`);
    expect(text.endsWith('</Signature></DeclaracionJurada>\n')).toBe(true);
  });

  it('opens a root written <root/> to take the Signature', () => {
    const signed = signAndCheck('<?xml version="1.0"?><Vacio a="1"/>');
    expect(signed.expandedEmptyRoot).toBe(true);
    expect(signed.bytes.toString('utf8')).toMatch(/^<\?xml version="1.0"\?><Vacio a="1"><Signature [^]*<\/Signature><\/Vacio>$/);
  });

  it('refuses, naming the reason: not well-formed, already signed, a DOCTYPE, another encoding', () => {
    const refusal = (xml: string | Buffer) => {
      try {
        signPortalXml(Buffer.isBuffer(xml) ? xml : Buffer.from(xml, 'utf8'), key);
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as ValidationError).errors[0]!;
      }
      throw new Error('not refused');
    };
    expect(refusal('<a><b></a>').code).toBe('PortalXml.NotWellFormed');
    expect(refusal('just text').code).toBe('PortalXml.NotWellFormed');
    expect(refusal('').code).toBe('PortalXml.Empty');
    const once = signPortalXml(Buffer.from(DECLARACION), key).bytes;
    const again = refusal(once);
    expect(again.code).toBe('PortalXml.AlreadySigned');
    expect(again.message).toContain('already holds a Signature');
    expect(refusal('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>').code).toBe('PortalXml.Doctype');
    expect(refusal('<?xml version="1.0"?>\n<!DOCTYPE a SYSTEM "http://example.com/a.dtd"><a/>').code).toBe('PortalXml.Doctype');
    expect(refusal(Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>\xf1</a>', 'latin1')).code).toBe('PortalXml.Encoding');
    expect(refusal(Buffer.from([0x3c, 0x61, 0x3e, 0xf1, 0x3c, 0x2f, 0x61, 0x3e])).code).toBe('PortalXml.Encoding');
    expect(refusal(Buffer.from('\uFEFF<a/>', 'utf16le')).code).toBe('PortalXml.Encoding');
  });

  it('property: small generated documents all verify with xmlsec1, bytes outside the Signature untouched', () => {
    const name = fc.constantFrom('a', 'Doc', 'RNC', 'Razón', 'p:x', 'Ñ');
    const text = fc.stringMatching(/^[A-Za-z0-9 áéíóúñÑ.,&<>"'\t\r\n-]{0,12}$/);
    const escape = (s: string, attr: boolean) =>
      s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, attr ? '&quot;' : '"');
    const space = fc.constantFrom('', ' ', '\n', '\r\n', '\n  ', '\t');
    type Node = string;
    const element: fc.Memo<Node> = fc.memo((depth) =>
      fc
        .tuple(
          name,
          fc.uniqueArray(fc.constantFrom('a', 'b', 'id', 'z', 'xml:lang'), { maxLength: 3 }),
          fc.array(text, { minLength: 3, maxLength: 3 }),
          depth > 1 ? fc.array(fc.oneof(text.map((t) => escape(t, false)), element(depth - 1)), { maxLength: 3 }) : fc.array(text.map((t) => escape(t, false)), { maxLength: 2 }),
          space,
          fc.boolean(),
        )
        .map(([n, attrs, values, children, ws, selfClose]) => {
          const ns = n.startsWith('p:') ? ' xmlns:p="urn:p"' : '';
          const a = attrs.map((k, i) => ` ${k}="${escape(values[i]!, true)}"`).join('');
          return children.length === 0 && selfClose ? `<${n}${ns}${a}/>` : `<${n}${ns}${a}>${ws}${children.join(ws)}${ws}</${n}>`;
        }),
    );
    const document = fc.tuple(fc.boolean(), fc.constantFrom('', ' xmlns="urn:d"'), element(3), space, fc.boolean()).map(([decl, dns, root, ws, trailing]) => {
      const withNs = dns ? root.replace(/^<([^\s/>]+)/, `<$1${dns}`) : root;
      return `${decl ? `<?xml version="1.0" encoding="utf-8"?>${ws}` : ''}${withNs}${trailing ? ws + '\n' : ''}`;
    });
    fc.assert(
      fc.property(document, (xml) => {
        signAndCheck(xml);
      }),
      { seed: 240_1, numRuns: 40 },
    );
  });
});

describe('ecf certify sign', () => {
  it('writes <name>.signed.xml beside the file, never overwrites without --force, and records the Paso', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    const certificatePem = (await signingCredentials(engine, tenant.id)).certificate.toString();
    await engine.close();
    const dir = tempDir('ecf-portal-');
    const file = join(dir, 'declaracion.xml');
    writeFileSync(file, DECLARACION.replace(/\n/g, '\r\n'));
    const { json, ecf } = cliFor(dataDir);

    // Not started: signed, nothing recorded.
    const first = await json(['certify', 'sign', file, '--paso', '13']);
    expect(first).toMatchObject({ file: join(dir, 'declaracion.signed.xml'), root: 'DeclaracionJurada', pasoRecorded: null });
    const signed = readFileSync(join(dir, 'declaracion.signed.xml'));
    expect(verifyWithXmlsec1(signed.toString('utf8'), certificatePem).ok).toBe(true);

    const exists = await json(['certify', 'sign', file], undefined, 4);
    expect(exists.error.code).toBe('PortalXml.OutputExists');
    expect(readFileSync(join(dir, 'declaracion.signed.xml')).equals(signed)).toBe(true);

    const e2 = await openEngine({ dataDir });
    await startCertification(e2, tenant.id);
    await e2.close();
    const forced = await json(['certify', 'sign', file, '--paso', '13', '--force']);
    expect(forced.pasoRecorded).toBe(13);
    const human = await ecf(['certify', 'sign', file, '--out', join(dir, 'p1.xml'), '--paso', '1']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Paso 1 recorded as done');
    const e3 = await openEngine({ dataDir });
    const cert = await getCertification(e3, tenant.id);
    await e3.close();
    expect(cert!.pasos[13]).toMatchObject({ state: 'done', detail: { file: join(dir, 'declaracion.signed.xml'), root: 'DeclaracionJurada' } });
    expect(cert!.pasos[1]).toMatchObject({ state: 'done', detail: { file: join(dir, 'p1.xml') } });
  }, 120_000);
});

describe('ecf certify sign --p12 (Paso 13: the representative signs)', () => {
  it("signs with the given .p12, not the tenant's certificate, and stores nothing; a wrong password is refused", async () => {
    const p12 = makeP12(identity, 'clave-representante');
    const input = Buffer.from('<?xml version="1.0" encoding="utf-8"?>\n<DeclaracionJurada><RNC>131234567</RNC></DeclaracionJurada>\n', 'utf8');
    const signed = signPortalXmlWithP12(input, p12, 'clave-representante');
    expect(signed.certificateId).toBeNull();
    expect(signed.certificateSubject).toContain('JOSÉ REPRESENTANTE');
    const verdict = verifyWithXmlsec1(signed.bytes.toString('utf8'), identity.certPem);
    expect(verdict.ok, verdict.output).toBe(true);
    expect(() => signPortalXmlWithP12(input, p12, 'otra')).toThrow();
  });
});
