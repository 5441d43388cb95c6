import { describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { EXCHANGED_TYPES } from '../../../src/engine/reception/receive.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { receptionHarness } from './harness.js';

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

/** A valid issue payload of each type, addressed to `buyerRnc` where the type has a buyer. */
function payloadOf(type: number, buyerRnc: string): Record<string, unknown> {
  const buyer = { rnc: buyerRnc, name: 'Receptor de Prueba SRL' };
  const line = { name: 'Cemento gris 42.5 kg', quantity: 2, unitPrice: '350.00' };
  const reference = { modifiedNcf: 'E310000000005', modifiedNcfDate: '2026-02-01', modificationCode: '3' };
  const payloads: Record<number, Record<string, unknown>> = {
    31: { type: 31, incomeType: '01', payment: { condition: '1' }, buyer, lines: [line] },
    32: { type: 32, incomeType: '01', payment: { condition: '1' }, buyer, lines: [line] },
    33: { type: 33, incomeType: '01', payment: { condition: '1' }, buyer, reference, lines: [line] },
    34: { type: 34, incomeType: '01', payment: { condition: '1' }, buyer, reference, lines: [line] },
    41: { type: 41, payment: { condition: '1' }, buyer, lines: [{ ...line, retention: { agent: '1', itbisWithheld: '0.00', isrWithheld: '14.00' } }] },
    43: { type: 43, lines: [{ name: 'Pasaje', quantity: 1, unitPrice: '150.00' }] },
    44: { type: 44, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'Servicio a zona franca', kind: 'service', quantity: 1, unitPrice: '5000.00' }] },
    45: { type: 45, incomeType: '01', payment: { condition: '2', dueDate: '2026-04-10' }, buyer, lines: [line] },
    46: { type: 46, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'Cacao en grano', quantity: 1000, unitPrice: '180.00', itbisRate: 0 }] },
    47: { type: 47, payment: { condition: '1' }, lines: [{ name: 'Licencia de software', kind: 'service', quantity: 1, unitPrice: '50000.00', retention: { agent: '1', isrWithheld: '13500.00' } }] },
  };
  return payloads[type]!;
}

describe('which e-CF types the receiver takes (NOTES §10.1)', () => {
  it('takes only 31, 33, 34 and 44', () => {
    expect([...EXCHANGED_TYPES].sort()).toEqual([31, 33, 34, 44]);
  });

  it('answers 32, 41, 43, 45, 46 and 47 with a signed ARECF "not received", code 1, stores each as not received; 31, 33, 34 and 44 are received', async () => {
    const h = await receptionHarness();
    for (const type of [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]) {
      const exchanged = [31, 33, 34, 44].includes(type);
      const sent = await h.sendFresh({ payload: payloadOf(type, h.tenant.rnc) });
      expect(sent.encf.slice(1, 3)).toBe(String(type));
      // The document itself is sound: only its type decides.
      expect(validateAgainstSchema(`ecf${type}` as Parameters<typeof validateAgainstSchema>[0], sent.xml).valid, `type ${type} sent`).toBe(true);

      expect(sent.answer.status).toBe(200);
      const arecf = sent.answer.body;
      expect(validateAgainstSchema('arecf', arecf), `type ${type}`).toEqual({ valid: true, errors: [] });
      const verified = verifyWithXmlsec1(arecf, h.certificatePem);
      expect(verified.ok, verified.output).toBe(true);
      expect(tag(arecf, 'eNCF')).toBe(sent.encf);
      expect(tag(arecf, 'RNCComprador')).toBe(h.tenant.rnc);
      expect([type, tag(arecf, 'Estado'), tag(arecf, 'CodigoMotivoNoRecibido')]).toEqual(exchanged ? [type, '0', null] : [type, '1', '1']);

      const [stored] = (await (await h.api('GET', `/api/v1/received-ecf?encf=${sent.encf}`)).json()).items;
      if (exchanged) {
        expect(stored).toMatchObject({ type, status: 'received', reception: { estado: 0, reasonCode: null }, approvalState: 'pending' });
      } else {
        expect(stored).toMatchObject({ type, status: 'not_received', reception: { estado: 1, reasonCode: 1 }, approvalState: 'not_applicable', securityCode: null });
        expect(stored.reception.reason).toContain(`type ${type} is never sent to another taxpayer`);
      }
    }
    const received = (await (await h.api('GET', '/api/v1/received-ecf?status=received&pageSize=50')).json()).items;
    expect(received.map((r: { type: number }) => r.type).sort()).toEqual([31, 33, 34, 44]);
    expect((await (await h.api('GET', '/api/v1/received-ecf?approval=automatic')).json()).totalCount).toBe(0);
    expect((await listEvents(h.engine.db, { tenantId: h.tenant.id })).filter((e) => e.type === 'inbound_ecf.received')).toHaveLength(10);
  });

  it('refuses (code 1) an e-CF whose TipoeCF is not the type of its e-NCF', async () => {
    const h = await receptionHarness();
    // A type 45 numbered as a 31: the type-31 schema allows every TipoeCF, so only the agreement check refuses it.
    const made = h.sandbox.control.taxpayer.makeEcf({ buyerRnc: h.tenant.rnc, encf: 'E310000000777', payload: payloadOf(45, h.tenant.rnc) });
    expect(tag(made.xml, 'TipoeCF')).toBe('45');
    const answer = await h.sandbox.control.taxpayer.sendEcf(h.receiverUrl, made.xml, { encf: made.encf });
    expect([tag(answer.body, 'Estado'), tag(answer.body, 'CodigoMotivoNoRecibido')]).toEqual(['1', '1']);
    const [stored] = (await (await h.api('GET', '/api/v1/received-ecf?encf=E310000000777')).json()).items;
    expect(stored).toMatchObject({ status: 'not_received', reception: { reasonCode: 1 } });
    expect(stored.reception.reason).toContain('TipoeCF 45 is not the type of E310000000777');
  });
});
