import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ecfStatuses, MAX_STATUS_IDS, notesModifying } from '../../../src/engine/ecf/index.js';
import { ecfDocument } from '../../../src/engine/representation/index.js';
import { retryRefusal } from '../../../src/engine/submission/index.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

/** What the console's e-CF pages read: statuses of some e-CF, the document from its XML, the notes that modify it, whether a retry would be taken. */
describe('the e-CF reads of the console', () => {
  it('answers the statuses of the tenant’s own e-CF only, a bounded number of them', async () => {
    const engine = await testEngine();
    const a = await seedIssuer(engine);
    const b = await seedIssuer(engine);
    const mine = (await issueEcf(engine, a.tenant.id, { idempotencyKey: 's-1', payload: invoice31() })).ecf;
    const theirs = (await issueEcf(engine, b.tenant.id, { idempotencyKey: 's-1', payload: invoice31() })).ecf;
    expect(await ecfStatuses(engine, a.tenant.id, [mine.id, mine.id])).toEqual([{ id: mine.id, encf: mine.encf, status: 'signed' }]);
    await expect(ecfStatuses(engine, a.tenant.id, [mine.id, theirs.id])).rejects.toMatchObject({ kind: 'not_found' });
    await expect(ecfStatuses(engine, a.tenant.id, ['not-an-id'])).rejects.toMatchObject({ kind: 'not_found' });
    await expect(ecfStatuses(engine, a.tenant.id, [])).rejects.toMatchObject({ errors: [{ path: 'ids' }] });
    const tooMany = Array.from({ length: MAX_STATUS_IDS + 1 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await expect(ecfStatuses(engine, a.tenant.id, tooMany)).rejects.toMatchObject({ errors: [{ path: 'ids', code: 'Validation.TooMany' }] });
    await expect(ecfDocument(engine, a.tenant.id, theirs.id)).rejects.toMatchObject({ kind: 'not_found' });
    await engine.close();
  });

  it('reads the document from its signed XML and finds the notes that modify it, not other notes', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const first = (await issueEcf(engine, tenant.id, { idempotencyKey: 'n-1', payload: invoice31() })).ecf;
    const second = (await issueEcf(engine, tenant.id, { idempotencyKey: 'n-2', payload: invoice31() })).ecf;
    const note = (modified: { encf: string; issueDate: string }, key: string) =>
      issueEcf(engine, tenant.id, {
        idempotencyKey: key,
        payload: invoice31({ type: 34, reference: { modifiedNcf: modified.encf, modifiedNcfDate: modified.issueDate, modificationCode: '3' }, lines: [{ name: 'Devolución', quantity: 1, unitPrice: '100.00' }] }),
      });
    const ofFirst = (await note(first, 'n-3')).ecf;
    const ofSecond = (await note(second, 'n-4')).ecf;
    expect((await notesModifying(engine, tenant.id, first.id)).map((n) => n.id)).toEqual([ofFirst.id]);
    expect((await notesModifying(engine, tenant.id, second.id)).map((n) => n.id)).toEqual([ofSecond.id]);

    const doc = await ecfDocument(engine, tenant.id, ofFirst.id);
    expect(doc.encf).toBe(ofFirst.encf);
    expect(doc.buyer?.name).toBe('Constructora Ejemplo SRL');
    expect(doc.lines.map((l) => l.name)).toEqual(['Devolución']);
    expect(doc.reference?.modifiedNcf).toBe(first.encf);
    await engine.close();
  });

  it('allows a retry of failed, review, and rejected without a consumed e-NCF only', () => {
    const e = (status: string, sequenceUsed?: boolean) => retryRefusal({ status, encf: 'E310000000001', sequenceUsed })?.code ?? null;
    expect(e('failed')).toBeNull();
    expect(e('review')).toBeNull();
    expect(e('rejected', false)).toBeNull();
    expect(e('rejected', true)).toBe('Ecf.SequenceConsumed');
    expect(e('rejected')).toBe('Ecf.SequenceConsumed');
    for (const status of ['signed', 'accepted', 'accepted_conditional']) expect(e(status)).toBe('Ecf.NotRetryable');
  });
});
