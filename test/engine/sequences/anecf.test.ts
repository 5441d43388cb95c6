import { X509Certificate, createPrivateKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import { anecfData, signAnecf, type AnnulledRange } from '../../../src/engine/documents/anecf-xml.js';
import { annulmentAnswer } from '../../../src/engine/taxauth/parse.js';
import { TaxauthError } from '../../../src/engine/taxauth/errors.js';
import { signCanonical, signingKey } from '../../../src/engine/signing/xmldsig.js';
import { serialize, type XmlData } from '../../../src/engine/xml/canonical.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { SANDBOX_CODES } from '../../../src/sandbox/index.js';
import { makeIdentity } from '../../certs.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { signedEcf, world } from '../taxauth/fixtures.js';

const r = (type: number, from: number, to: number): AnnulledRange => ({ type, series: 'E', from, to });

describe('the ANECF document', () => {
  it('has one Anulacion per type in type order, its ranges lowest first, each counted, and the total in the header', () => {
    const data = anecfData('131234567', [r(34, 1, 5), r(31, 10, 12), r(31, 1, 2)], '09-03-2026 23:05:09');
    expect(data).toEqual({
      Encabezado: { Version: '1.0', RncEmisor: '131234567', CantidadeNCFAnulados: '10', FechaHoraAnulacioneNCF: '09-03-2026 23:05:09' },
      DetalleAnulacion: {
        Anulacion: [
          {
            NoLinea: '1',
            TipoeCF: '31',
            TablaRangoSecuenciasAnuladaseNCF: {
              Secuencias: [
                { SecuenciaeNCFDesde: 'E310000000001', SecuenciaeNCFHasta: 'E310000000002' },
                { SecuenciaeNCFDesde: 'E310000000010', SecuenciaeNCFHasta: 'E310000000012' },
              ],
            },
            CantidadeNCFAnulados: '5',
          },
          {
            NoLinea: '2',
            TipoeCF: '34',
            TablaRangoSecuenciasAnuladaseNCF: { Secuencias: [{ SecuenciaeNCFDesde: 'E340000000001', SecuenciaeNCFHasta: 'E340000000005' }] },
            CantidadeNCFAnulados: '5',
          },
        ],
      },
    });
  });

  it('for every type at once (ten Anulacion, the schema’s maximum) is schema-valid and its signature verifies with xmlsec1', () => {
    const identity = makeIdentity();
    const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
    const ranges = [31, 32, 33, 34, 41, 43, 44, 45, 46, 47].map((t, i) => r(t, 1 + i, 1000));
    const signed = signAnecf('00112345678', ranges, new Date('2026-03-10T03:05:09.000Z'), key);
    expect(validateAgainstSchema('anecf', signed.xml)).toEqual({ valid: true, errors: [] });
    const xmlsec = verifyWithXmlsec1(signed.xml, identity.certPem);
    expect(xmlsec.ok, xmlsec.output).toBe(true);
    // The header counts 1000 + 999 + … + 991 numbers, at 23:05:09 Dominican time of the day before (UTC−4).
    expect(signed.xml).toContain('<CantidadeNCFAnulados>9955</CantidadeNCFAnulados><FechaHoraAnulacioneNCF>09-03-2026 23:05:09</FechaHoraAnulacioneNCF>');
    expect(signed.xml.match(/<Anulacion>/g)).toHaveLength(10);
    // A changed byte breaks it.
    expect(verifyWithXmlsec1(signed.xml.replace('E310000000001', 'E310000000002'), identity.certPem).ok).toBe(false);
  });
});

describe('any ANECF the builder makes', () => {
  it('passes the official schema and its counts add up (random ranges of random types), and xmlsec1 verifies a sample', () => {
    const identity = makeIdentity();
    const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
    const TYPES = [31, 32, 33, 34, 41, 43, 44, 45, 46, 47] as const;
    const range = fc
      .record({ type: fc.constantFrom(...TYPES), from: fc.integer({ min: 1, max: 999_999_999 }), size: fc.integer({ min: 1, max: 99_999_999 }) })
      .map(({ type, from, size }) => r(type, from, from + size - 1));
    let sampled = 0; // xmlsec1 runs as a process: the first five documents are enough
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 40 }), (ranges) => {
        const signed = signAnecf('131234567', ranges, new Date('2026-03-10T14:00:00.000Z'), key);
        expect(validateAgainstSchema('anecf', signed.xml)).toEqual({ valid: true, errors: [] });
        const total = ranges.reduce((sum, x) => sum + x.to - x.from + 1, 0);
        expect(signed.xml).toContain(`<Encabezado><Version>1.0</Version><RncEmisor>131234567</RncEmisor><CantidadeNCFAnulados>${total}</CantidadeNCFAnulados>`);
        expect(signed.xml.match(/<Anulacion>/g)).toHaveLength(new Set(ranges.map((x) => x.type)).size);
        expect(signed.xml.match(/<Secuencias>/g)).toHaveLength(ranges.length);
        if (sampled < 5) {
          sampled++;
          const xmlsec = verifyWithXmlsec1(signed.xml, identity.certPem);
          expect(xmlsec.ok, xmlsec.output).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the sandbox’s anularrango', () => {
  async function setup() {
    const w = await world();
    const token = await w.token();
    const { privateKey, certificate } = await signingCredentials(w.engine, w.tenant.id);
    const key = signingKey(privateKey, certificate);
    const sign = (data: XmlData) => signCanonical(serialize('anecf', data), key).xml;
    const send = (xml: string, encf = 'E310000000001') => w.client.annulRanges(token, { rnc: w.tenant.rnc, encf, xml });
    const refusal = async (xml: string) => {
      const e = await send(xml).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(TaxauthError);
      expect((e as TaxauthError).status).toBe(400);
      return annulmentAnswer((e as TaxauthError).rawBody ?? '');
    };
    const doc = (ranges: AnnulledRange[]) => anecfData(w.tenant.rnc, ranges, '10-03-2026 10:00:00');
    return { ...w, tok: token, sign, send, refusal, doc };
  }

  it('annuls a valid, signed ANECF (codigo 15) and refuses its numbers afterwards, to another ANECF and to an e-CF', async () => {
    const w = await setup();
    const xml = w.sign(w.doc([r(31, 40, 60)]));
    expect(await w.send(xml)).toEqual({ rnc: w.tenant.rnc, code: '15', name: 'Satisfactorio', messages: ['Las secuencias fueron anuladas correctamente.'] });
    expect(w.control.annulments()).toEqual([
      expect.objectContaining({ annulled: true, rnc: w.tenant.rnc, fileName: `${w.tenant.rnc}E310000000001.xml`, xml, ranges: [{ type: 31, from: 40, to: 60 }] }),
    ]);
    expect(await w.refusal(w.sign(w.doc([r(31, 60, 61)])))).toEqual({
      rnc: w.tenant.rnc,
      code: String(SANDBOX_CODES.annulmentUsed),
      name: 'Rechazado',
      messages: ['Las secuencias que está intentando anular han sido utilizadas.'],
    });

    const ecf = await signedEcf(w.engine, w.tenant, 'E310000000050');
    const { trackId } = await w.client.sendEcf(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000050', xml: ecf.xml });
    expect(await w.client.result(w.tok, trackId)).toMatchObject({
      code: 2,
      sequenceUsed: true,
      messages: [{ code: SANDBOX_CODES.encfAnnulled, value: 'El e-NCF E310000000050 fue anulado.' }],
    });
  });

  it('refuses numbers an e-CF it received has used', async () => {
    const w = await setup();
    const ecf = await signedEcf(w.engine, w.tenant, 'E310000000007');
    await w.client.sendEcf(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000007', xml: ecf.xml });
    expect((await w.refusal(w.sign(w.doc([r(31, 1, 10)]))))?.code).toBe(String(SANDBOX_CODES.annulmentUsed));
    expect((await w.send(w.sign(w.doc([r(31, 8, 10)])))).code).toBe('15');
  });

  it('checks NoLinea order, the type of each range, Desde ≤ Hasta, the counts, the schema and the signature', async () => {
    const w = await setup();
    const edit = (ranges: AnnulledRange[], change: (d: { Encabezado: XmlData; DetalleAnulacion: { Anulacion: XmlData[] } }) => void) => {
      const d = w.doc(ranges) as unknown as { Encabezado: XmlData; DetalleAnulacion: { Anulacion: XmlData[] } };
      change(d);
      return w.sign(d as unknown as XmlData);
    };
    const seq = (d: { DetalleAnulacion: { Anulacion: XmlData[] } }, i = 0) =>
      ((d.DetalleAnulacion.Anulacion[i]!.TablaRangoSecuenciasAnuladaseNCF as XmlData).Secuencias as XmlData[])[0]!;
    const cases: [string, string, string][] = [
      [edit([r(31, 1, 1), r(32, 1, 1)], (d) => (d.DetalleAnulacion.Anulacion[0]!.NoLinea = '2')), String(SANDBOX_CODES.annulmentLineOrder), 'El campo NoLinea no es válido, no cumple orden secuencial.'],
      [edit([r(31, 1, 1)], (d) => (seq(d).SecuenciaeNCFHasta = 'E320000000001')), String(SANDBOX_CODES.annulmentType), 'El tipo de comprobante no es válido.'],
      [edit([r(31, 1, 1)], (d) => (seq(d).SecuenciaeNCFDesde = 'E310000000009')), String(SANDBOX_CODES.annulmentReversed), 'La secuencia desde no puede ser mayor que la secuencia hasta.'],
      [edit([r(31, 1, 5)], (d) => (d.DetalleAnulacion.Anulacion[0]!.CantidadeNCFAnulados = '4')), String(SANDBOX_CODES.annulmentCount), 'La cantidad de e-NCF anulados de la línea 1 no coincide con sus secuencias.'],
      [edit([r(31, 1, 5)], (d) => (d.Encabezado.CantidadeNCFAnulados = '6')), String(SANDBOX_CODES.annulmentCount), 'La cantidad de e-NCF anulados del encabezado no coincide con el detalle.'],
    ];
    for (const [xml, code, message] of cases) {
      expect(await w.refusal(xml), message).toMatchObject({ code, messages: [message] });
    }
    const unsigned = serialize('anecf', w.doc([r(31, 1, 1)]));
    expect((await w.refusal(unsigned))?.code).toBe(String(SANDBOX_CODES.schema));
    const tampered = w.sign(w.doc([r(31, 1, 1)])).replace('E310000000001</SecuenciaeNCFHasta>', 'E310000000002</SecuenciaeNCFHasta>');
    expect((await w.refusal(tampered))?.code).toBe(String(SANDBOX_CODES.signature));
    expect(w.control.annulments().every((a) => !a.annulled)).toBe(true);
    expect(w.control.stats().annulments).toBe(cases.length + 2);
  });

  it('needs the bearer token', async () => {
    const w = await setup();
    const e = await w.client.annulRanges('not-a-token', { rnc: w.tenant.rnc, encf: 'E310000000001', xml: w.sign(w.doc([r(31, 1, 1)])) }).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'http', status: 401 });
    expect(w.control.annulments()).toEqual([]);
  });
});
