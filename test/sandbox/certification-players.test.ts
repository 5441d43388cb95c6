import { describe, expect, it } from 'vitest';
import { listInboundApprovals, listReceivedEcf } from '../../src/engine/reception/queries.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { invoice31 } from '../helpers.js';
import { receptionHarness } from '../engine/reception/harness.js';
import { section8Sources } from './certification-harness.js';

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
};

describe("the sandbox plays the authority's side of Pasos 9 and 11 against the appliance's receiver", () => {
  it('Paso 9: authenticates, sends signed e-CF, checks each ARECF (a tampered one must come back not received, motivo 2), and records it in the progress', async () => {
    const h = await receptionHarness();
    // A certification sandbox of its own, holding a set for the tenant's RNC; the receiver is the appliance's, over HTTP.
    const authority = await startSandbox({ clock: h.engine.clock, certification: section8Sources });
    try {
      const base = `${authority.url}/_sandbox/certification/${h.tenant.rnc}`;
      await post(`${base}/start`, { variant: 'section8' });
      const played = await post(`${base}/paso9`, { url: h.receiverUrl, faulty: true });
      expect(played.status).toBe(200);
      expect(played.body.report).toMatchObject({ sent: 4, correct: 4, authentication: { ok: true } });
      expect(played.body.report.documents.every((d: { ok: boolean; problems: string[] }) => d.ok && d.problems.length === 0)).toBe(true);
      expect(played.body.progress.paso9).toMatchObject({ text: '4/4 respuestas correctas', done: true });
      expect(played.body.progress.messages.at(-1).text).toContain('Paso 9: 4/4');
      const inbox = await listReceivedEcf(h.engine, h.tenant.id, {});
      expect(inbox.items.map((i) => i.status).sort()).toEqual(['not_received', 'received', 'received', 'received']);

      // A URL where nothing answers: nothing is right, and the progress says so.
      const nowhere = await post(`${base}/paso9`, { url: 'http://127.0.0.1:9/nada', count: 1 });
      expect(nowhere.body.report).toMatchObject({ sent: 1, correct: 0, authentication: { ok: false } });
      expect(nowhere.body.report.authentication.detail).toContain('cannot be reached');
      expect(nowhere.body.progress.paso9.done).toBe(false);
      expect((await post(`${base}/paso9`, { url: 'ftp://x' })).status).toBe(400);
    } finally {
      await authority.close();
    }
  });

  it('Paso 11: an ACECF over each e-CF the applicant issued and the authority accepted, each answered 200 and recorded by the receiver', async () => {
    const h = await receptionHarness();
    const base = `${h.sandbox.url}/_sandbox/certification/${h.tenant.rnc}`;
    expect((await post(`${base}/paso11`, { url: h.receiverUrl, environment: 'testecf' })).status).toBe(409);
    await h.issue(invoice31()); // buyer 131880681, the sandbox taxpayer
    await h.issue(invoice31());
    await h.drive();
    const played = await post(`${base}/paso11`, { url: h.receiverUrl, environment: 'testecf' });
    expect(played.status).toBe(200);
    expect(played.body.report).toMatchObject({ sent: 2, correct: 2, authentication: { ok: true } });
    expect(played.body.progress).toBeNull(); // no set for this RNC: the result is only in the answer
    // The receiver's 200 carries the body known to pass the portal (APPROVAL_RECEIVED_ANSWER), not an empty one.
    expect(played.body.report.documents.map((d: { answer: string }) => JSON.parse(d.answer))).toEqual([
      { codigo: 'OK', estado: 'Aprobacion Comercial Aceptada', mensaje: [] },
      { codigo: 'OK', estado: 'Aprobacion Comercial Aceptada', mensaje: [] },
    ]);
    const approvals = await listInboundApprovals(h.engine, h.tenant.id);
    expect(approvals).toHaveLength(2);
    expect(approvals.every((a) => a.decision === 'accepted' && a.buyerRnc === '131880681')).toBe(true);
    // Played again at the same instant: the same bytes, which the receiver answers 200 again and records once.
    const again = await post(`${base}/paso11`, { url: h.receiverUrl, environment: 'testecf', count: 1 });
    expect(again.body.report).toMatchObject({ sent: 1, correct: 1 });
    expect(await listInboundApprovals(h.engine, h.tenant.id)).toHaveLength(2);
  });
});
