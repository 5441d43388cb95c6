// Every kind of document the store keeps, for training the document dictionary
// (scripts/train-dictionary.ts) and for measuring it: e-CF of every type (31 to
// 34 from the realistic corpus; 41 and 43 to 47 from the property tests'
// generators, kept to what a business issues: few lines, ordinary amounts),
// the RFCE of each small 32, and the ANECF, ARECF and ACECF an issuer signs.
import fc from 'fast-check';
import { prepareDocument } from '../../src/engine/documents/prepare.js';
import { signEcf } from '../../src/engine/documents/sign-ecf.js';
import { signAnecf } from '../../src/engine/documents/anecf-xml.js';
import { signAcecf, signArecf, NOT_RECEIVED } from '../../src/engine/reception/documents.js';
import type { EcfType } from '../../src/engine/documents/payload.js';
import { payloadOfType } from '../../test/engine/documents/arbitraries.js';
import { corpusDocument, type CorpusIssuer, type CorpusType } from './realistic.js';

export type DocumentKindName = `ecf${number}` | 'rfce' | 'anecf' | 'arecf' | 'acecf';

export interface KindDocument {
  readonly kind: DocumentKindName;
  readonly bytes: Buffer;
}

const REALISTIC: readonly CorpusType[] = [31, 32, 33, 34];
const GENERATED: readonly EcfType[] = [41, 43, 44, 45, 46, 47];

const dayOf = (rnd: () => number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(rnd() * 300) * 86_400_000).toISOString().slice(0, 10);
const rncOf = (rnd: () => number) => String(101_000_000 + Math.floor(rnd() * 300_000_000)).slice(0, 9);

/** `perType` signed e-CF of each generated type (41, 43-47), by `from`. */
export function generatedTypes(seed: number, from: CorpusIssuer, perType: number): KindDocument[] {
  const out: KindDocument[] = [];
  for (const type of GENERATED) {
    const samples = fc.sample(payloadOfType(type, { lineCount: fc.integer({ min: 1, max: 8 }), hugeAmounts: false }), { numRuns: perType * 4, seed: seed + type });
    let made = 0;
    for (const g of samples) {
      if (made >= perType || g.outside) continue;
      const outcome = prepareDocument(g.payload, { sequenceMode: 'managed', today: '2026-03-10' });
      if (!outcome.document) continue;
      const signed = signEcf({
        document: outcome.document,
        computed: outcome.document.computed,
        issuer: from.issuer,
        numbering: { encf: `E${type}${String(++made).padStart(10, '0')}`, sequenceExpiresOn: '2027-12-31' },
        key: from.key,
        environment: 'production',
        now: new Date('2026-03-10T14:05:09Z'),
      });
      out.push({ kind: `ecf${type}`, bytes: signed.xmlBytes });
    }
  }
  return out;
}

/** `count` documents of the realistic types in a shop's mix, with the RFCE of each small 32. */
export function realisticTypes(rnd: () => number, from: CorpusIssuer, count: number): KindDocument[] {
  const out: KindDocument[] = [];
  for (let i = 0; i < count; i++) {
    const type = REALISTIC[Math.floor(rnd() * REALISTIC.length)]!;
    const d = corpusDocument(rnd, from, type, i + 1, dayOf(rnd));
    out.push({ kind: `ecf${type}`, bytes: d.signed.xmlBytes });
    if (d.signed.rfceXml) out.push({ kind: 'rfce', bytes: Buffer.from(d.signed.rfceXml, 'utf8') });
  }
  return out;
}

/** `count` each of ANECF, ARECF and ACECF signed by `from`. */
export function answers(rnd: () => number, from: CorpusIssuer, count: number): KindDocument[] {
  const out: KindDocument[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(`${dayOf(rnd)}T${String(8 + Math.floor(rnd() * 12)).padStart(2, '0')}:${String(Math.floor(rnd() * 60)).padStart(2, '0')}:21Z`);
    const ranges = Array.from({ length: 1 + Math.floor(rnd() * rnd() * 4) }, (_, k) => {
      const first = 1 + Math.floor(rnd() * 90_000);
      return { type: [31, 32, 33, 34, 41, 43, 44, 45, 46, 47][Math.floor(rnd() * 10)]!, series: 'E', from: first + k * 100_000, to: first + k * 100_000 + Math.floor(rnd() * 50) };
    });
    const unique = ranges.filter((r, j) => ranges.findIndex((o) => o.type === r.type) === j);
    out.push({ kind: 'anecf', bytes: Buffer.from(signAnecf(from.issuer.rnc, unique, at, from.key).xml, 'utf8') });
    const encf = `E31${String(1 + Math.floor(rnd() * 99_999)).padStart(10, '0')}`;
    const other = rncOf(rnd);
    const refused = rnd() < 0.1;
    out.push({ kind: 'arecf', bytes: Buffer.from(signArecf({ issuerRnc: other, buyerRnc: from.issuer.rnc, encf, notReceived: refused ? NOT_RECEIVED.specification : null, at }, from.key).xml, 'utf8') });
    const rejected = rnd() < 0.2;
    const acecf = signAcecf(
      {
        issuerRnc: other, encf, issueDate: `${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}-0${1 + Math.floor(rnd() * 9)}-2026`,
        montoTotal: `${1 + Math.floor(rnd() * 90_000)}.${String(Math.floor(rnd() * 100)).padStart(2, '0')}`,
        buyerRnc: from.issuer.rnc, decision: rejected ? 'rejected' : 'accepted', rejectionReason: rejected ? 'Mercancía no recibida' : null, at,
      },
      from.key,
    );
    out.push({ kind: 'acecf', bytes: Buffer.from(acecf.xml, 'utf8') });
  }
  return out;
}
