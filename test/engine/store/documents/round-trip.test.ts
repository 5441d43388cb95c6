import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signAnecf } from '../../../../src/engine/documents/anecf-xml.js';
import { ECF_TYPES } from '../../../../src/engine/documents/payload.js';
import { signAcecf, signArecf } from '../../../../src/engine/reception/documents.js';
import { inTransaction } from '../../../../src/engine/store/database.js';
import type { Engine } from '../../../../src/engine/engine-types.js';
import { payloadOfType } from '../../documents/arbitraries.js';
import { key, signValidated, validate } from '../../documents/issue-helper.js';
import { testEngine } from '../../../helpers.js';

/**
 * The round trip, as a property over the generated payload space: whatever
 * document of whatever kind is stored, the bytes read back are the bytes
 * signed. Each run compresses, stores (the certificate text interned) and
 * reads back through a real store.
 */
async function roundTrip(engine: Engine, bytes: Buffer, id: string): Promise<void> {
  const prepared = await engine.documents.prepare(bytes);
  const stored = await inTransaction(engine.db, (tx) => engine.documents.store(tx, prepared));
  expect(stored.blob[0], 'the blob is in the compressed layout').toBe(0);
  const read = await engine.documents.read(engine.db, stored.blob, stored.sha256, { table: 'test', id });
  expect(read.equals(bytes), `${id}: the bytes read are the bytes signed`).toBe(true);
}

describe('compressed documents: the bytes read are the bytes signed', () => {
  it('every e-CF type (and the RFCE of each small 32) from the payload generators', async () => {
    const engine = await testEngine();
    const kinds = new Set<string>();
    const anyValid = fc.constantFrom(...ECF_TYPES).chain((t) => payloadOfType(t, { lineCount: fc.integer({ min: 1, max: 6 }) })).filter((g) => !g.outside);
    await fc.assert(
      fc.asyncProperty(anyValid, async (g) => {
        const outcome = validate(g.payload);
        if (!outcome.document) return; // the generator stepped outside the rules by chance: nothing is signed
        const signed = signValidated(outcome.document);
        kinds.add(`ecf${g.type}`);
        await roundTrip(engine, signed.xmlBytes, `ecf${g.type}`);
        if (signed.rfceXml) {
          kinds.add('rfce');
          await roundTrip(engine, Buffer.from(signed.rfceXml, 'utf8'), 'rfce');
        }
      }),
      { numRuns: 60 },
    );
    expect(kinds.size, `kinds seen: ${[...kinds].join(', ')}`).toBeGreaterThanOrEqual(8);
    // One signer: its certificate text is kept once.
    expect(await engine.db.selectFrom('document_certificates').select('id').execute()).toHaveLength(1);
  });

  it('ANECF, ARECF and ACECF of any content', async () => {
    const engine = await testEngine();
    const rnc = fc.stringMatching(/^[1-4]\d{8}$/);
    const at = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });
    const encf = fc.integer({ min: 1, max: 9_999_999_999 }).map((n) => `E31${String(n).padStart(10, '0')}`);
    const ranges = fc.uniqueArray(
      fc.record({ type: fc.constantFrom(...ECF_TYPES), from: fc.integer({ min: 1, max: 1_000_000 }), span: fc.integer({ min: 0, max: 5000 }) }),
      { minLength: 1, maxLength: 4, selector: (r) => r.type },
    );
    await fc.assert(
      fc.asyncProperty(rnc, rnc, encf, at, ranges, fc.boolean(), fc.string({ minLength: 1, maxLength: 200 }), async (issuerRnc, buyerRnc, e, when, rs, refused, why) => {
        const anecf = signAnecf(buyerRnc, rs.map((r) => ({ type: r.type, series: 'E', from: r.from, to: r.from + r.span })), when, key);
        await roundTrip(engine, Buffer.from(anecf.xml, 'utf8'), 'anecf');
        const arecf = signArecf({ issuerRnc, buyerRnc, encf: e, notReceived: refused ? 4 : null, at: when }, key);
        await roundTrip(engine, Buffer.from(arecf.xml, 'utf8'), 'arecf');
        const reason = why.replace(/[\u0000-\u001f\ud800-\udfff]/g, '').trim() || 'No solicitado';
        const acecf = signAcecf({ issuerRnc, encf: e, issueDate: '10-03-2026', montoTotal: '1500.00', buyerRnc, decision: refused ? 'rejected' : 'accepted', rejectionReason: refused ? reason : null, at: when }, key);
        await roundTrip(engine, Buffer.from(acecf.xml, 'utf8'), 'acecf');
      }),
      { numRuns: 25 },
    );
  });
});
