import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { TEST_SERVER_URL, seedIssuer, testEngine, waitUntil } from '../../helpers.js';
import { wholeJournal } from './journal-tools.js';

const SLOW = 120_000;

function worker(engine: Engine, tenantId: string, prefix: string, count: number | 'forever', options: { waitForGo?: boolean } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/engine/journal/issue-worker.ts', engine.dataDir, tenantId, prefix, String(count)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...(options.waitForGo && { ISSUE_WORKER_WAIT: '1' }) },
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; output: string }>((done) => child.on('close', (code, signal) => done({ code, signal, output })));
  return { child, exited, ready: () => output.includes('ready') };
}

/** A tenant the child processes can sign for: its certificate in the data directory's encrypted files, not a keychain. */
async function issuer() {
  const engine = await testEngine();
  await setSetting(engine, 'secrets.store', 'file');
  const { tenant } = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  return { engine, tenant };
}

/** Every e-CF in the store has exactly one ecf.issued entry, and every such entry names an e-CF in the store. */
async function expectIssuedOnce(engine: Engine, tenantId: string) {
  const entries = await wholeJournal(engine, tenantId);
  const issued = entries.filter((e) => e.kind === 'ecf.issued').map((e) => e.ecfKey!);
  const keys = (await engine.db.selectFrom('ecf').select('store_key').where('tenant_key', '=', await tenantKey(engine.db, tenantId)).execute()).map((r) => Number(r.store_key));
  expect(issued.length).toBe(new Set(issued).size);
  expect(new Set(issued)).toEqual(new Set(keys));
  return { entries, issued: issued.length };
}

const ecfCount = async (engine: Engine) => Number((await engine.db.selectFrom('ecf').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('the journal across processes', () => {
  it(
    'an engine process issuing in a loop, killed with SIGKILL: reopened, the chain recomputes whole and every e-CF has exactly one ecf.issued entry',
    async () => {
      const { engine, tenant } = await issuer();
      const before = await ecfCount(engine);
      const { child, exited } = worker(engine, tenant.id, 'k', 'forever');
      await waitUntil(async () => (await ecfCount(engine)) >= before + 25, 'the child to issue 25 e-CF', 60_000);
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      const { issued } = await expectIssuedOnce(engine, tenant.id);
      expect(issued).toBeGreaterThanOrEqual(25);

      // Issuing goes on from the head the dead process left.
      const again = worker(engine, tenant.id, 'k2', 3);
      expect((await again.exited).code).toBe(0);
      expect((await expectIssuedOnce(engine, tenant.id)).issued).toBe(issued + 3);
    },
    SLOW,
  );

  it.skipIf(!TEST_SERVER_URL)(
    'three engine processes on one PostgreSQL database issuing for one tenant at once: one unbroken chain, every e-CF once',
    async () => {
      const { engine, tenant } = await issuer();
      const PER_PROCESS = 30;
      const runs = ['p1', 'p2', 'p3'].map((p) => worker(engine, tenant.id, p, PER_PROCESS, { waitForGo: true }));
      await waitUntil(() => runs.every((r) => r.ready()), 'the three processes to open the store', 60_000);
      for (const r of runs) r.child.stdin!.end('go\n');
      for (const r of runs) {
        const done = await r.exited;
        expect(done.code, done.output).toBe(0);
      }
      const { entries, issued } = await expectIssuedOnce(engine, tenant.id);
      expect(issued).toBe(3 * PER_PROCESS);
      expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    },
    SLOW,
  );
});
