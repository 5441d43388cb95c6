// Realistic signed documents, for training the store's compression dictionary and for the
// big-store bench: what a shop, a pharmacy or a hardware store issues (types 31, 32 with its
// RFCE under DOP 250,000, 33, 34), each from one of several issuers with its own certificate,
// with 1 to 40 lines of plausible goods. Deterministic for a seed, so a pool can be rebuilt.
import { generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { prepareDocument } from '../../src/engine/documents/prepare.js';
import { signEcf, type SignedEcf } from '../../src/engine/documents/sign-ecf.js';
import type { Issuer } from '../../src/engine/documents/ecf-xml.js';
import { signingKey, type SigningKey } from '../../src/engine/signing/xmldsig.js';

export { generator } from './random.js';

const TRADE = ['Ferretería', 'Farmacia', 'Colmado', 'Supermercado', 'Distribuidora', 'Librería', 'Repuestos', 'Panadería', 'Óptica', 'Tienda'];
const PLACE = ['del Caribe', 'Quisqueya', 'Ozama', 'Cibao', 'Las Américas', 'Ñoño', 'Duarte', 'del Este', 'Santo Domingo', 'Bávaro', 'La Vega', 'Higüey'];
const GOODS = [
  'Tornillos galvanizados 1/4"', 'Cemento gris 42.5 kg', 'Varilla corrugada 3/8', 'Pintura acrílica blanca galón', 'Tubo PVC 1/2" x 19\'',
  'Acetaminofén 500 mg x 20', 'Amoxicilina 500 mg x 21', 'Ibuprofeno 400 mg x 10', 'Alcohol isopropílico 70% 16 oz', 'Vitamina C 1000 mg x 30',
  'Arroz selecto 10 lb', 'Habichuelas rojas 1 lb', 'Aceite de soya 1 L', 'Salami súper especial', 'Café molido 1 lb', 'Leche evaporada 315 g',
  'Cuaderno 100 hojas', 'Lápiz de grafito No. 2', 'Bombillo LED 9 W', 'Cable eléctrico THHN 12', 'Llave de paso 1/2"', 'Filtro de aceite',
  'Pastilla de freno delantera', 'Pan sobao', 'Lentes monofocales', 'Servicio de instalación', 'Mano de obra técnica', 'Transporte de mercancía',
];
const NAMES = ['Constructora', 'Inversiones', 'Comercial', 'Servicios', 'Agroindustrial', 'Importadora', 'Grupo', 'Consultores'];

export interface CorpusIssuer {
  readonly issuer: Issuer;
  readonly key: SigningKey;
}

/** An issuer with a fresh 2048-bit key and a self-issued certificate naming it. */
export function corpusIssuer(rnd: () => number, index: number): CorpusIssuer {
  const rnc = String(101_000_000 + Math.floor(rnd() * 300_000_000)).slice(0, 9);
  const trade = `${TRADE[index % TRADE.length]} ${PLACE[Math.floor(rnd() * PLACE.length)]}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    issuer: {
      rnc,
      legalName: `${trade} ${['SRL', 'SAS', 'EIRL', 'SA'][index % 4]}`,
      tradeName: trade,
      address: `Calle ${PLACE[index % PLACE.length]} No. ${1 + Math.floor(rnd() * 300)}, Ensanche ${PLACE[(index + 3) % PLACE.length]}`,
      municipality: '010100',
      province: '010000',
      phones: [`809-555-${String(1000 + Math.floor(rnd() * 8999))}`],
      email: `ventas${index}@negocio.do`,
      economicActivity: 'Venta al por menor',
    },
    key: signingKey(privateKey, certificateFor(privateKey, trade, rnc)),
  };
}

function certificateFor(privateKey: KeyObject, commonName: string, rnc: string): X509Certificate {
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `0${rnc}`;
  cert.validity.notBefore = new Date('2026-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2028-01-01T00:00:00Z');
  cert.setSubject([{ name: 'commonName', value: commonName.toUpperCase() }, { type: '2.5.4.5', value: `IDCDO-${rnc}` }]);
  cert.setIssuer([{ name: 'commonName', value: 'AVANSI CA DOMINICANA' }, { name: 'organizationName', value: 'Pruebas' }, { name: 'countryName', value: 'DO' }]);
  cert.sign(key, forge.md.sha256.create());
  return new X509Certificate(forge.pki.certificateToPem(cert));
}

export type CorpusType = 31 | 32 | 33 | 34;

export interface CorpusDocument {
  readonly type: CorpusType;
  readonly encf: string;
  readonly lines: number;
  readonly signed: SignedEcf;
}

const cents = (rnd: () => number, min: number, max: number) => Math.round(Math.exp(Math.log(min) + rnd() * (Math.log(max) - Math.log(min))));
const amount = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

/** One signed document of `type` by `from`, numbered `sequence`, issued on `day` (YYYY-MM-DD). */
export function corpusDocument(rnd: () => number, from: CorpusIssuer, type: CorpusType, sequence: number, day: string): CorpusDocument {
  const lineCount = type === 32 ? 1 + Math.floor(rnd() * rnd() * 25) : 1 + Math.floor(rnd() * rnd() * 40);
  const lines = Array.from({ length: lineCount }, () => {
    const price = cents(rnd, 2_500, type === 32 ? 1_500_000 : 6_000_000);
    const line: Record<string, unknown> = {
      name: GOODS[Math.floor(rnd() * GOODS.length)],
      quantity: 1 + Math.floor(rnd() * rnd() * 24),
      unitPrice: amount(price),
    };
    if (rnd() < 0.15) line.itbisRate = rnd() < 0.5 ? 16 : 0;
    if (rnd() < 0.1) line.discount = amount(Math.floor(price * rnd() * 0.2));
    if (rnd() < 0.5) line.codes = [{ type: 'EAN', value: `746${String(Math.floor(rnd() * 1e10)).padStart(10, '0')}` }];
    return line;
  });
  const buyer =
    type === 32 && rnd() < 0.8
      ? undefined
      : { rnc: String(101_000_000 + Math.floor(rnd() * 300_000_000)).slice(0, 9), name: `${NAMES[Math.floor(rnd() * NAMES.length)]} ${PLACE[Math.floor(rnd() * PLACE.length)]} ${Math.floor(rnd() * 900)} SRL` };
  const payload: Record<string, unknown> = {
    type,
    incomeType: '01',
    payment: type === 32 ? { condition: '1' } : rnd() < 0.5 ? { condition: '1' } : { condition: '2', dueDate: day },
    ...(buyer && { buyer }),
    lines,
  };
  if (type === 33 || type === 34) {
    payload.reference = { modifiedNcf: `E31${String(1 + Math.floor(rnd() * 99_999)).padStart(10, '0')}`, modifiedNcfDate: day, modificationCode: type === 34 ? '3' : '2' };
  }
  let outcome = prepareDocument(payload, { sequenceMode: 'managed', today: day });
  // A consumo of DOP 250,000 or more names its buyer.
  if (!outcome.document && !payload.buyer) outcome = prepareDocument({ ...payload, buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL' } }, { sequenceMode: 'managed', today: day });
  if (!outcome.document) throw new Error(`corpus payload refused: ${JSON.stringify(outcome.errors).slice(0, 500)}`);
  const encf = `E${type}${String(sequence).padStart(10, '0')}`;
  const signed = signEcf({
    document: outcome.document,
    computed: outcome.document.computed,
    issuer: from.issuer,
    numbering: { encf, sequenceExpiresOn: type === 32 || type === 34 ? null : '2027-12-31' },
    key: from.key,
    environment: 'production',
    now: new Date(`${day}T${String(12 + Math.floor(rnd() * 10)).padStart(2, '0')}:${String(Math.floor(rnd() * 60)).padStart(2, '0')}:07Z`),
  });
  return { type, encf, lines: lineCount, signed };
}
