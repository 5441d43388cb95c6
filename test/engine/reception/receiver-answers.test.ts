import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverApprovalHandler } from '../../../src/engine/reception/deliver.js';
import { pendingWork } from '../../../src/engine/work/queue.js';
import { receptionHarness } from './harness.js';

const servers: Server[] = [];
afterEach(async () => {
  while (servers.length) {
    const s = servers.pop()!;
    s.closeAllConnections();
    await new Promise((done) => s.close(done));
  }
});

/**
 * Another taxpayer's receiver that answers its ACECF uploads in turn with
 * the statuses given ('drop' closes the connection unanswered), then 200.
 */
async function scriptedReceiver(answers: (number | 'drop')[]) {
  const hits: (number | 'drop')[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = answers.shift() ?? 200;
      hits.push(answer);
      if (answer === 'drop') return req.socket.destroy();
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? '' : `status ${answer}`);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** A decided ACECF whose issuer's directory entry points at `base` (no authentication service). */
async function decidedFor(base: string) {
  const h = await receptionHarness();
  await h.sendFresh();
  const { rnc } = h.sandbox.control.taxpayer;
  h.sandbox.control.registerTaxpayer({ rnc, nombre: 'Receptor de prueba', urlRecepcion: null, urlAceptacion: base, urlOpcional: null });
  const id = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0].id as string;
  expect((await h.api('POST', `/api/v1/received-ecf/${id}/commercial-approval`, { decision: 'accepted', rejectionReason: null })).status).toBe(202);
  const deliveries = async () => (await (await h.api('GET', `/api/v1/received-ecf/${id}`)).json()).commercialApproval.deliveries;
  return { h, id, deliveries };
}

describe('the issuer’s receiver: a "not now" is tried again, a definite no is final', () => {
  it('429, 503, 408 and a dropped connection are each tried again on the ladder, then delivered', async () => {
    const receiver = await scriptedReceiver([429, 503, 408, 'drop']);
    const { h, deliveries } = await decidedFor(receiver.base);
    await h.drive();
    expect(receiver.hits).toEqual([429, 503, 408, 'drop', 200]);
    expect((await deliveries()).issuer).toMatchObject({ status: 'delivered', attempts: 5, lastError: null, url: `${receiver.base}/fe/aprobacioncomercial/api/ecf` });
  });

  it('a 401 (the receiver refused the call) and a 500 are tried again, not refused', async () => {
    const receiver = await scriptedReceiver([401, 500]);
    const { h, deliveries } = await decidedFor(receiver.base);
    await h.drive();
    expect(receiver.hits).toEqual([401, 500, 200]);
    expect((await deliveries()).issuer).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('a 404 is a definite refusal: refused at the first attempt, with what the receiver said', async () => {
    const receiver = await scriptedReceiver([404]);
    const { h, deliveries } = await decidedFor(receiver.base);
    await h.drive();
    expect(receiver.hits).toEqual([404]);
    const issuer = (await deliveries()).issuer;
    expect(issuer).toMatchObject({ status: 'refused', attempts: 1, nextAttemptAt: null });
    expect(issuer.lastError).toBe('/fe/aprobacioncomercial/api/ecf: HTTP 404: status 404');
  });

  it('a damaged delivery-state column reads as Store.ColumnDamaged, naming the row, in the handler and the view', async () => {
    const receiver = await scriptedReceiver([]);
    const { h, id } = await decidedFor(receiver.base);
    const [item] = await pendingWork(h.engine.db, 'acecf.deliver');
    const approval = await h.engine.db.selectFrom('received_ecf_approvals').select('id').where('received_ecf_id', '=', id).executeTakeFirstOrThrow();
    await h.engine.db.updateTable('received_ecf_approvals').set({ issuer_delivery: '{"status":"sent"}', taxauth_delivery: 'not json' }).execute();
    const where = (item!.payload as { target: string }).target === 'issuer' ? 'issuer_delivery' : 'taxauth_delivery';
    await expect(deliverApprovalHandler(h.engine, item!)).rejects.toMatchObject({ code: 'Store.ColumnDamaged', where: `received_ecf_approvals.${where} of ${approval.id}` });
    const view = await h.api('GET', `/api/v1/received-ecf/${id}`);
    expect(view.status).toBe(500);
    expect(await view.json()).toMatchObject({ code: 'Store.ColumnDamaged' });
    expect(receiver.hits).toEqual([]);
  });
});
