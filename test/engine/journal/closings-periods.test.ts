import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { appendJournal, checkClosingSignature, verifyAudit, writeDueClosings, type ClosingData } from '../../../src/engine/journal/index.js';
import { Dec } from '../../../src/engine/money.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { invoice31, seedIssuer, seedTenant, tempDir, testEngine } from '../../helpers.js';
import { rawStore, rewriteChain } from './audit-helpers.js';

// The test clock starts at 2026-03-10T14:00Z, 10:00 in the Dominican Republic (UTC-4): the
// Dominican day 2026-03-10 ends at 2026-03-11T04:00Z.
const END_OF_MARCH_10 = '2026-03-11T04:00:00.000Z';

async function closingsOf(engine: Awaited<ReturnType<typeof testEngine>>, key: number) {
  const rows = await engine.db.selectFrom('journal').select(['seq', 'kind', 'data']).where('tenant_key', '=', key).where('kind', 'in', [16, 17]).orderBy('seq').execute();
  return rows.map((r) => ({ seq: Number(r.seq), data: JSON.parse(r.data!) as ClosingData }));
}

describe('closings', () => {
  it('close a day once it has ended, signed over the head it locks, with counts and totals from the store, and the chain still passes through it after more appends', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    for (let i = 1; i <= 3; i++) await issueEcf(engine, tenant.id, { idempotencyKey: `c-${i}`, payload: invoice31({ internalNumber: `C-${i}` }) });
    const key = await tenantKey(engine.db, tenant.id);

    engine.clock.set(new Date(Date.parse(END_OF_MARCH_10) + 59_000)); // within the grace after the day's end
    expect((await writeDueClosings(engine)).written).toEqual([]);
    engine.clock.set(new Date(Date.parse(END_OF_MARCH_10) + 61_000));
    const head = await engine.db.selectFrom('journal_heads').selectAll().where('tenant_key', '=', key).executeTakeFirstOrThrow();
    const headSeq = Number(head.seq);
    expect((await writeDueClosings(engine)).written).toEqual([{ tenantId: tenant.id, kind: 'day', period: '2026-03-10', seq: headSeq + 1, signed: true }]);
    expect((await writeDueClosings(engine)).written).toEqual([]);

    const [closing] = await closingsOf(engine, key);
    const amounts = await engine.db.selectFrom('ecf').select('monto_total').where('tenant_key', '=', key).execute();
    const total = amounts.reduce((s, r) => s.plus(r.monto_total), new Dec(0)).toFixed(2);
    expect(closing!.data).toMatchObject({
      kind: 'day',
      period: '2026-03-10',
      issued: [{ environment: 'test', type: 31, count: 3, total }],
      perpetual: [{ environment: 'test', type: 31, count: 3, total }],
      lockedHead: { seq: headSeq, hash: head.hash.toString('hex') },
      previous: { day: null, month: null },
    });
    expect(checkClosingSignature(closing!.data)).toEqual({ ok: true, signed: true });

    // The next day: one more e-CF; its closing adds to the perpetual totals and names the previous closing.
    engine.clock.set('2026-03-11T15:00:00.000Z');
    await issueEcf(engine, tenant.id, { idempotencyKey: 'c-4', payload: invoice31({ internalNumber: 'C-4' }) });
    engine.clock.set('2026-03-12T05:00:00.000Z');
    expect((await writeDueClosings(engine)).written.map((w) => w.period)).toEqual(['2026-03-11']);
    const second = (await closingsOf(engine, key))[1]!.data;
    expect(second.issued).toMatchObject([{ type: 31, count: 1 }]);
    expect(second.perpetual).toMatchObject([{ type: 31, count: 4, total: new Dec(total).plus((await engine.db.selectFrom('ecf').select('monto_total').where('encf', '=', 'E310000000004').executeTakeFirstOrThrow()).monto_total).toFixed(2) }]);
    expect(second.previous).toEqual({ day: headSeq + 1, month: null });

    const audit = (await verifyAudit(engine, { tenantId: tenant.id })).tenants[0]!;
    const entries = await engine.db.selectFrom('journal').select((b) => b.fn.countAll<number | string>().as('n')).where('tenant_key', '=', key).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ problem: null, entries: Number(entries.n), ecf: 4, closings: { signed: 2, unsigned: 0 } });
  });

  it('catch up after days off, one closing per day in order and each month after its last day, a bounded number per run', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'k', payload: invoice31({ internalNumber: 'K' }) });
    const key = await tenantKey(engine.db, tenant.id);
    engine.clock.set('2026-04-02T05:00:00.000Z'); // 2026-04-01 ended an hour ago
    const first = await writeDueClosings(engine, { limit: 10 });
    expect(first.more).toBe(true);
    expect(first.written.map((w) => w.period)).toEqual(['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14', '2026-03-15', '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19']);
    const rest = await writeDueClosings(engine);
    expect(rest.more).toBe(false);
    const periods = rest.written.map((w) => `${w.kind} ${w.period}`);
    expect(periods.slice(-3)).toEqual(['day 2026-03-31', 'month 2026-03', 'day 2026-04-01']);
    expect(periods).toHaveLength(12 + 1 + 1);

    const closings = await closingsOf(engine, key);
    const month = closings.find((c) => c.data.kind === 'month')!;
    expect(month.data).toMatchObject({ period: '2026-03', issued: [{ count: 1 }], perpetual: [{ count: 1 }], previous: { day: month.seq - 1, month: null } });
    const april = closings.at(-1)!.data;
    expect(april).toMatchObject({ period: '2026-04-01', issued: [], perpetual: [{ count: 1 }], previous: { day: month.seq - 1, month: month.seq } });
    expect((await verifyAudit(engine, { tenantId: tenant.id })).tenants[0]).toMatchObject({ problem: null, closings: { signed: 24, unsigned: 0 } });
  });

  it('are written once when two runs plan the same period at the same time', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'r', payload: invoice31({ internalNumber: 'R' }) });
    engine.clock.set('2026-03-13T05:00:00.000Z');
    const runs = await Promise.all([writeDueClosings(engine), writeDueClosings(engine)]);
    const written = runs.flatMap((r) => r.written.map((w) => w.period)).sort();
    expect(written).toEqual(['2026-03-10', '2026-03-11', '2026-03-12']);
    const closings = await closingsOf(engine, await tenantKey(engine.db, tenant.id));
    expect(closings.map((c) => c.data.period)).toEqual(['2026-03-10', '2026-03-11', '2026-03-12']);
    expect((await verifyAudit(engine)).tenants[0]).toMatchObject({ problem: null, closings: { signed: 3 } });
  });

  it('of a tenant whose key cannot be read now are left for the next run, not written unsigned, and do not hold up the others', async () => {
    const engine = await testEngine();
    const broken = (await seedIssuer(engine)).tenant;
    const fine = (await seedIssuer(engine)).tenant;
    for (const t of [broken, fine]) {
      const key = await tenantKey(engine.db, t.id);
      await inTransaction(engine.db, async (tx) => appendJournal(tx, engine.clock.now(), { tenantKey: key, kind: 'settings.changed', data: '{}' }));
    }
    await engine.db.updateTable('certificates').set({ secret_ref: 'gone' }).where('tenant_id', '=', broken.id).execute();
    const fineHead = await engine.db.selectFrom('journal_heads').select('seq').where('tenant_key', '=', await tenantKey(engine.db, fine.id)).executeTakeFirstOrThrow();
    engine.clock.set('2026-03-11T05:00:00.000Z');
    const report = await writeDueClosings(engine);
    expect(report.written).toEqual([{ tenantId: fine.id, kind: 'day', period: '2026-03-10', seq: Number(fineHead.seq) + 1, signed: true }]);
    expect(report.failed).toMatchObject([{ tenantId: broken.id, error: expect.stringContaining('no longer holds certificate') }]);
    expect(await closingsOf(engine, await tenantKey(engine.db, broken.id))).toEqual([]);
  });

  it('are written unsigned when the tenant has no certificate, and verify says so; a tenant with only its tenant.created entry gets its closings too', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const other = (await seedTenant(engine)).tenant; // its journal holds only what making it wrote
    const key = await tenantKey(engine.db, tenant.id);
    await inTransaction(engine.db, async (tx) => appendJournal(tx, engine.clock.now(), { tenantKey: key, kind: 'settings.changed', data: '{"x":1}' }));
    const heads = new Map((await engine.db.selectFrom('journal_heads').select(['tenant_key', 'seq']).execute()).map((h) => [Number(h.tenant_key), Number(h.seq)]));
    const [mine, theirs] = [heads.get(key)!, heads.get(await tenantKey(engine.db, other.id))!];
    engine.clock.set('2026-03-12T05:00:00.000Z');
    const { written } = await writeDueClosings(engine);
    expect(written).toHaveLength(4);
    expect(written).toEqual(expect.arrayContaining([
      { tenantId: tenant.id, kind: 'day', period: '2026-03-10', seq: mine + 1, signed: false },
      { tenantId: tenant.id, kind: 'day', period: '2026-03-11', seq: mine + 2, signed: false },
      { tenantId: other.id, kind: 'day', period: '2026-03-10', seq: theirs + 1, signed: false },
      { tenantId: other.id, kind: 'day', period: '2026-03-11', seq: theirs + 2, signed: false },
    ]));
    const [closing] = await closingsOf(engine, key);
    expect(closing!.data).toMatchObject({ issued: [], perpetual: [], certificate: null, signature: null });
    const report = await verifyAudit(engine);
    expect(report.broken).toBe(0);
    expect(report.tenants.find((t) => t.tenantId === tenant.id)).toMatchObject({ problem: null, closings: { signed: 0, unsigned: 2 } });
  });

  it('verify with jq and openssl alone, as docs/record.md shows', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'o', payload: invoice31({ internalNumber: 'O' }) });
    engine.clock.set('2026-03-11T05:00:00.000Z');
    await writeDueClosings(engine);
    const [closing] = await closingsOf(engine, await tenantKey(engine.db, tenant.id));
    const dir = tempDir('ecf-closing-');
    // The commands exactly as the docs give them to an auditor.
    const docs = readFileSync(new URL('../../../docs/record.md', import.meta.url), 'utf8');
    const script = /\*\*Checking a closing by hand\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)![1]!;
    expect(script).toContain('openssl dgst -sha256 -verify');
    const stored = (await engine.db.selectFrom('journal').select('data').where('seq', '=', closing!.seq).executeTakeFirstOrThrow()).data!;
    writeFileSync(join(dir, 'closing.json'), stored);
    expect(execFileSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8' })).toContain('Verified OK');
    writeFileSync(join(dir, 'closing.json'), stored.replace(/"count":1/, '"count":2'));
    let refused: { status: number; stdout: string } | undefined;
    try {
      execFileSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      refused = e as { status: number; stdout: string };
    }
    expect(refused?.status).toBe(1);
    expect(refused?.stdout).toMatch(/Verification [Ff]ailure/);
  });

  it('whose data was edited fail: as an edited entry, and on their signature once the chain is rewritten over the edit', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'e', payload: invoice31({ internalNumber: 'E' }) });
    const key = await tenantKey(engine.db, tenant.id);
    engine.clock.set('2026-03-11T05:00:00.000Z');
    await writeDueClosings(engine);
    const [closing] = await closingsOf(engine, key);
    const edited = JSON.stringify({ ...closing!.data, issued: [{ ...closing!.data.issued[0], total: '1.00' }] });
    const raw = await rawStore(engine);
    try {
      await raw.run('update journal set data = ? where tenant_key = ? and seq = ?', [edited, key, closing!.seq]);
      expect((await verifyAudit(engine)).tenants[0]!.problem).toMatchObject({ seq: closing!.seq, kind: 'closing.day', what: expect.stringContaining('stored link') });
      await rewriteChain(raw, key);
      expect((await verifyAudit(engine)).tenants[0]!.problem).toMatchObject({ seq: closing!.seq, kind: 'closing.day', what: expect.stringContaining('signature does not verify') });
    } finally {
      await raw.close();
    }
  });
});
