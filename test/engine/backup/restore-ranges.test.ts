import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../src/engine/backup/backup.js';
import { restoreDataDir } from '../../../src/engine/backup/restore.js';
import type { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { EngineError } from '../../../src/engine/errors.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { setNextNumber } from '../../../src/engine/sequences/index.js';
import { verifyRangesAfterRestore } from '../../../src/engine/sequences/restore-check.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { drive } from '../submission/harness.js';
import { codeOf } from './code-of.js';
import { sandboxedStore } from './sandboxed-store.js';
import { cliFor } from '../../cli-runner.js';
import { STORE, invoice31, tempDir, testDataDir } from '../../helpers.js';

/**
 * Issue 32, point 7: a restore rewinds the e-NCF pointers to the moment of
 * the backup, while the store it came from went on issuing numbers the
 * authority accepted. The trial's flow, as one test: a backup taken, more
 * e-CF issued and accepted by the sandbox (over real HTTP), the restore; no
 * range issues until the check has asked the authority by e-NCF from the
 * restored pointer on and moved past the numbers it knows; then issuing
 * again works and reuses no number (the sandbox refuses a used e-NCF).
 */
const PASSPHRASE = 'contraseña de respaldo';
const consumo = { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] };

const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!.close();
});

async function live() {
  const { engine, sandbox, tenant } = await sandboxedStore(closing, 500);
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  let n = 0;
  const issueOn = async (on: Engine, payload: unknown) => (await issueEcf(on, tenant.id, { idempotencyKey: `rr-${++n}`, payload })).ecf;
  return { engine, sandbox, tenant, issueOn };
}

async function restored(file: string, clock: ManualClock) {
  const dataDir = testDataDir('ecf-restored-');
  const result = await restoreDataDir(file, dataDir, PASSPHRASE, { clock });
  const engine = await openEngine({ dataDir, clock });
  closing.push(engine);
  return { engine, result };
}

const statuses = async (engine: Engine) =>
  Object.fromEntries((await engine.db.selectFrom('ecf').select(['encf', 'status']).orderBy('encf').execute()).map((e) => [e.encf, e.status]));

describe(`e-NCF ranges after a restore on ${STORE}`, () => {
  it('backup, more issuing, restore, issuing again: held until the authority check moves past the numbers it knows; no number is reused', async () => {
    const { engine, tenant, issueOn } = await live();
    for (let i = 1; i <= 3; i++) await issueOn(engine, invoice31({ internalNumber: `FAC-${i}` }));
    await issueOn(engine, consumo);
    await drive(engine, engine.clock);
    const file = join(tempDir(), 'nightly.ecfbak');
    await backupDataDir(engine, file, PASSPHRASE);

    // The live store goes on: E31 4–8 and E32 2 issued after the backup, all but E31 5 sent and accepted
    // (5 never left the store before it was lost: the authority does not know it).
    const after = [];
    for (let i = 4; i <= 8; i++) after.push(await issueOn(engine, invoice31({ internalNumber: `FAC-${i}` })));
    after.push(await issueOn(engine, consumo));
    expect(after.map((e) => e.encf)).toEqual(['E310000000004', 'E310000000005', 'E310000000006', 'E310000000007', 'E310000000008', 'E320000000002']);
    await engine.db.deleteFrom('work').where('ref', '=', after[1]!.id).execute();
    await drive(engine, engine.clock);
    const liveStatuses = await statuses(engine);
    expect(Object.values(liveStatuses).filter((s) => s === 'accepted')).toHaveLength(9);
    expect(liveStatuses.E310000000005).toBe('signed');

    const { engine: copy, result } = await restored(file, engine.clock);
    expect(result.rangesHeld.count).toBe(10);
    expect(result.rangesHeld.checks).toEqual([
      { tenantId: tenant.id, rnc: tenant.rnc, environment: 'test', ranges: 10, command: `ecf sequence verify --tenant ${tenant.id} --env test` },
    ]);

    // Held: issuing is refused, naming the range, its next e-NCF and what to run; nothing is stored.
    const before = await statuses(copy);
    const refused = await issueOn(copy, invoice31({ internalNumber: 'FAC-R1' })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EngineError);
    expect((refused as EngineError).code).toBe('Sequence.UnverifiedAfterRestore');
    expect((refused as EngineError).message).toContain('range 1–500 of type 31 in test');
    expect((refused as EngineError).message).toContain('E310000000004');
    expect((refused as EngineError).message).toContain(`ecf sequence verify --tenant ${tenant.id} --env test`);
    expect(await codeOf(issueOn(copy, consumo))).toBe('Sequence.UnverifiedAfterRestore');
    expect(await statuses(copy)).toEqual(before);

    // The check asks the sandbox by e-NCF from each restored pointer on and moves past what it knows.
    const checks = await verifyRangesAfterRestore(copy, tenant.id, { lookahead: 5 });
    expect(checks).toHaveLength(10);
    expect(checks.every((c) => c.outcome === 'verified')).toBe(true);
    const byType = Object.fromEntries(checks.map((c) => [c.type, c]));
    expect(byType[31]).toMatchObject({ restoredNext: 4, next: 9, known: 4, unknownSkipped: [{ from: 5, to: 5 }] });
    // Type 32 under the threshold went as RFCE, which has no trackId: the status query knows it.
    expect(byType[32]).toMatchObject({ restoredNext: 2, next: 3, known: 1, unknownSkipped: [] });
    expect(byType[33]).toMatchObject({ restoredNext: 1, next: 1, known: 0, unknownSkipped: [] });
    expect(await copy.db.selectFrom('sequence_ranges').select('id').where('unverified_since', 'is not', null).execute()).toEqual([]);
    // Nothing left to check: a second run finds no held range.
    expect(await verifyRangesAfterRestore(copy, tenant.id)).toEqual([]);

    // Issuing again works, past every number the live store used, and the authority accepts it.
    const again = [await issueOn(copy, invoice31({ internalNumber: 'FAC-R2' })), await issueOn(copy, consumo)];
    expect(again.map((e) => e.encf)).toEqual(['E310000000009', 'E320000000003']);
    await drive(copy, copy.clock as ManualClock);
    const restoredStatuses = await statuses(copy);
    expect(restoredStatuses.E310000000009).toBe('accepted');
    expect(restoredStatuses.E320000000003).toBe('accepted');
    const used = [...Object.keys(liveStatuses), ...again.map((e) => e.encf)];
    expect(new Set(used).size).toBe(used.length);
  });

  it('steps over numbers annulled before the backup without asking, as issuing does, and leaves no annulled number counted ahead', async () => {
    const { engine, tenant, issueOn } = await live();
    for (let i = 1; i <= 3; i++) await issueOn(engine, invoice31({ internalNumber: `FAC-${i}` }));
    const annulled = await annulSequences(engine, tenant.id, { environment: 'test', reason: 'Talonario dañado', lines: [{ type: 31, series: 'E', rangeFrom: 5, rangeTo: 6 }] });
    expect(annulled.status).toBe('voided');
    await drive(engine, engine.clock);
    const file = join(tempDir(), 'nightly.ecfbak');
    await backupDataDir(engine, file, PASSPHRASE);
    const after = [];
    for (let i = 4; i <= 6; i++) after.push((await issueOn(engine, invoice31({ internalNumber: `FAC-${i}` }))).encf);
    expect(after).toEqual(['E310000000004', 'E310000000007', 'E310000000008']);
    await drive(engine, engine.clock);

    const { engine: copy } = await restored(file, engine.clock);
    const checks = await verifyRangesAfterRestore(copy, tenant.id, { environment: 'test', lookahead: 3 });
    expect(checks.find((c) => c.type === 31)).toMatchObject({ outcome: 'verified', restoredNext: 4, next: 9, known: 3, unknownSkipped: [] });
    const range = await copy.db.selectFrom('sequence_ranges').select(['next', 'annulled_ahead']).where('type', '=', 31).executeTakeFirstOrThrow();
    expect(range).toEqual({ next: 9, annulled_ahead: 0 });
    expect((await issueOn(copy, invoice31())).encf).toBe('E310000000009');
  });

  it('keeps a range held when the authority cannot be asked, and says what to run; a confirmed range issues again', async () => {
    const { engine, sandbox, tenant, issueOn } = await live();
    await issueOn(engine, invoice31());
    await drive(engine, engine.clock);
    const file = join(tempDir(), 'nightly.ecfbak');
    await backupDataDir(engine, file, PASSPHRASE);
    const { engine: copy } = await restored(file, engine.clock);
    await sandbox.close();
    closing.splice(closing.indexOf(sandbox), 1);

    const checks = await verifyRangesAfterRestore(copy, tenant.id, { environment: 'test' });
    expect(checks).toHaveLength(10);
    for (const c of checks) {
      expect(c.outcome).toBe('unchecked');
      expect(c.next).toBe(c.restoredNext);
      expect(c.error).toContain(`ecf sequence verify --tenant ${tenant.id} --env test`);
    }
    expect(await codeOf(issueOn(copy, invoice31()))).toBe('Sequence.UnverifiedAfterRestore');

    // The operator knows better: `ecf sequence next --set` at the number it holds confirms it, and only that range.
    const confirm = () => setNextNumber(copy, { tenantId: tenant.id, environment: 'test', type: 31, next: 2 });
    expect(await confirm()).toMatchObject({ releasedAfterRestore: true, previous: 2, next: 2 });
    expect(await confirm()).toMatchObject({ releasedAfterRestore: false, next: 2 });
    expect((await issueOn(copy, invoice31())).encf).toBe('E310000000002');
    expect(await codeOf(issueOn(copy, consumo))).toBe('Sequence.UnverifiedAfterRestore');
  });

  it('ecf restore says the ranges are held and what to run; ecf sequence verify asks the sandbox and releases them', { timeout: 120_000 }, async () => {
    const { engine, tenant, issueOn } = await live();
    await issueOn(engine, invoice31());
    await drive(engine, engine.clock);
    const file = join(tempDir(), 'nightly.ecfbak');
    await backupDataDir(engine, file, PASSPHRASE);
    await issueOn(engine, invoice31());
    await drive(engine, engine.clock);

    const target = testDataDir('ecf-cli-restored-');
    const cli = cliFor(target);
    const restoredRun = await cli.ecf(['restore', file, '--passphrase-stdin'], PASSPHRASE);
    expect(restoredRun.code, restoredRun.stderr).toBe(0);
    expect(restoredRun.stdout).toContain('Held all 10 e-NCF range(s)');
    expect(restoredRun.stdout).toContain(`ecf sequence verify --tenant ${tenant.id} --env test`);
    expect(restoredRun.stdout).toContain('ecf sequence next');

    const checks = await cli.json<{ type: number; outcome: string; restoredNext: number; next: number }[]>(['sequence', 'verify', '--tenant', tenant.id, '--env', 'test', '--lookahead', '3']);
    expect(checks.map((c) => c.outcome)).toEqual(Array(10).fill('verified'));
    expect(checks.find((c) => c.type === 31)).toMatchObject({ restoredNext: 2, next: 3 });
    const copy = await openEngine({ dataDir: target, clock: engine.clock });
    closing.push(copy);
    expect((await issueOn(copy, invoice31())).encf).toBe('E310000000003');
  });
});
