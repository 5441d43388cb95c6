import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { noteTransportFailure, noteTransportSuccess, setContingency } from '../../../src/engine/submission/contingency.js';
import { receiveInboundApproval } from '../../../src/engine/reception/receive.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { drive } from '../submission/harness.js';
import { receptionHarness } from '../reception/harness.js';
import { invoice31, testEngine } from '../../helpers.js';
import { capturing } from './capture.js';

/**
 * The engine's lines an operator acts on besides state changes: contingency
 * starting and ending, and commercial approvals refused, each with what it
 * concerns (the e-NCF) and why.
 */
describe('operations in the engine log', () => {
  it('logs contingency starting (warn, with why) and ending (info) once each, by the operator and automatically', async () => {
    const engine0 = await testEngine();
    const { engine, lines } = capturing(engine0);
    const switches = () => lines.filter((l) => l.fields.contingency).map((l) => [l.level, l.fields.contingency, l.fields.source, l.fields.by]);

    await setContingency(engine, true);
    await setContingency(engine, true); // already on: no second line
    await setContingency(engine, false);
    expect(switches()).toEqual([
      ['warn', 'started', 'manual', 'operator'],
      ['info', 'ended', 'manual', 'operator'],
    ]);
    expect(lines.find((l) => l.fields.contingency === 'started')!.message).toMatch(/^contingency started: the operator turned it on/);

    // Automatic: failures for contingency.after_minutes, then the first success.
    await setSetting(engine, 'contingency.after_minutes', 5);
    await noteTransportFailure(engine);
    engine0.clock.advance(6 * 60_000);
    await noteTransportFailure(engine);
    await noteTransportSuccess(engine);
    expect(switches().slice(2)).toEqual([
      ['warn', 'started', 'automatic', 'authority'],
      ['info', 'ended', 'automatic', 'authority'],
    ]);
    const started = lines.filter((l) => l.fields.contingency === 'started')[1]!;
    expect(started.fields.failingSince).toEqual(expect.any(String));
    expect(started.message).toContain(`calls to the authority have failed since ${started.fields.failingSince as string}`);
  });

  it('logs an ACECF refused at the receiver with its e-NCF and reasons, and a buyer\'s rejection with its reason', async () => {
    const h = await receptionHarness();
    const { engine, lines } = capturing(h.engine);
    const ecf = await h.issue(invoice31()); // buyer 131880681: the sandbox taxpayer
    const make = (montoTotal: string, decision: 'accepted' | 'rejected', rejectionReason?: string) =>
      Buffer.from(h.sandbox.control.taxpayer.makeApproval({ issuerRnc: h.tenant.rnc, encf: ecf.encf, issueDate: ecf.issueDate, montoTotal, decision, ...(rejectionReason && { rejectionReason }) }));

    await expect(receiveInboundApproval(engine, h.tenant.id, { xml: make('1.00', 'accepted') })).rejects.toThrow(/MontoTotal 1.00/);
    const refused = lines.filter((l) => l.fields.approvalRefused);
    expect(refused).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ tenantId: h.tenant.id, encf: ecf.encf, buyerRnc: '131880681', approvalRefused: ['Approval.TotalMismatch'], reason: expect.stringContaining('MontoTotal 1.00') }),
      }),
    ]);
    expect(refused[0]!.message).toContain(ecf.encf);

    await receiveInboundApproval(engine, h.tenant.id, { xml: make(ecf.montoTotal.toFixed(2), 'rejected', 'Precio distinto al acordado') });
    expect(lines.filter((l) => l.fields.decision)).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ encf: ecf.encf, buyerRnc: '131880681', decision: 'rejected', reason: 'Precio distinto al acordado' }) }),
    ]);
  });

  it('logs an outgoing ACECF the issuer and the authority refuse, with the e-NCF and the reason they gave', async () => {
    const h = await receptionHarness();
    const { engine, lines } = capturing(h.engine);
    const sent = await h.sendFresh();
    const id = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0].id;
    expect((await h.api('POST', `/api/v1/received-ecf/${id}/commercial-approval`, { decision: 'rejected', rejectionReason: 'No solicitado' })).status).toBe(202);
    // What the other side receives no longer matches its signature: both refuse it, for good.
    // (Stored raw with its own digest: intact as far as the store can tell, so it is sent.)
    const row = await h.engine.db.selectFrom('received_ecf_approvals').select(['id', 'xml', 'xml_sha256']).executeTakeFirstOrThrow();
    const signed = await h.engine.documents.read(h.engine.db, row.xml, row.xml_sha256, { table: 'received_ecf_approvals', id: row.id });
    const altered = Buffer.from(signed.toString('utf8').replace('No solicitado', 'No solicitada'));
    await h.engine.db.updateTable('received_ecf_approvals').set({ xml: altered, xml_sha256: createHash('sha256').update(altered).digest('hex') }).where('id', '=', row.id).execute();
    await drive(engine, h.engine.clock);

    const deliveries = lines.filter((l) => l.fields.approvalDelivery);
    expect(deliveries.map((l) => [l.level, l.fields.target, l.fields.approvalDelivery, l.fields.encf]).sort()).toEqual([
      ['warn', 'issuer', 'refused', sent.encf],
      ['warn', 'taxauth', 'refused', sent.encf],
    ]);
    for (const l of deliveries) {
      expect(l.fields.reason).toMatch(/firma/i);
      expect(l.message).toContain(`commercial approval of ${sent.encf} refused by`);
    }
  });
});
