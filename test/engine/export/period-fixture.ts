import { annulSequences } from '../../../src/engine/sequences/annulling.js';
import { invoice31 } from '../../helpers.js';
import { receptionHarness } from '../reception/harness.js';

/**
 * A tenant's March 2026 with every kind of document an export carries,
 * made through the product's own paths (the sandbox plays the other
 * taxpayer over loopback): issued 31 and 32 (under 250,000, so with its
 * RFCE), a note 34 modifying the 31, an ANECF, a received e-CF answered
 * with an ARECF and the tenant's ACECF, and an ACECF received for the 31.
 */
export async function periodWithEveryDocument() {
  const h = await receptionHarness();
  const e31 = await h.issue(invoice31());
  const e32 = await h.issue({ ...invoice31(), type: 32, buyer: undefined, payment: { condition: '1', methods: [{ type: '1', amount: '100.00' }] } });
  const e34 = await h.issue({
    type: 34, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Cliente Grande SRL' },
    reference: { modifiedNcf: e31.encf, modifiedNcfDate: e31.issueDate, modificationCode: '3' },
    lines: [{ name: 'Descuento posterior', quantity: 1, unitPrice: '100.00' }],
  });
  const annulment = await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'Cierre', lines: [{ type: 34, series: 'E', rangeFrom: 990, rangeTo: 1000 }] });
  const received = await h.sendFresh();
  const receivedId: string = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0].id;
  const decided = await h.api('POST', `/api/v1/received-ecf/${receivedId}/commercial-approval`, { decision: 'accepted', rejectionReason: null }, 'emisor');
  if (decided.status !== 202) throw new Error(`the approval was not taken: ${decided.status}`);
  const approval = h.sandbox.control.taxpayer.makeApproval({ issuerRnc: h.tenant.rnc, encf: e31.encf, issueDate: e31.issueDate, montoTotal: e31.montoTotal.toFixed(2), decision: 'accepted' });
  const sent = await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, approval, { encf: e31.encf });
  if (sent.status !== 200) throw new Error(`the inbound approval was not taken: ${sent.status} ${sent.body}`);
  return { h, e31, e32, e34, annulment, received, issuerRnc: h.sandbox.control.taxpayer.rnc as string };
}
