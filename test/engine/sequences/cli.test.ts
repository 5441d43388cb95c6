import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { seedIssuer, testDataDir } from '../../helpers.js';
import { cliFor } from '../../cli-runner.js';

// stdin is not a terminal: the confirmation cannot be asked.
const ecf = (dataDir: string, args: string[]) => cliFor(dataDir).ecf(args);

describe('ecf sequence annul | annulments | annul-retry', () => {
  it('refuses without --yes when it cannot ask, annuls with it, lists, and retries a failed one', async () => {
    const sandbox = await startSandbox();
    try {
      const dataDir = testDataDir();
      const engine = await openEngine({ dataDir });
      await seedIssuer(engine);
      await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
      await engine.close();
      const annul = ['sequence', 'annul', '--env', 'test', '--type', '31', '--from', '901', '--to', '1000', '--reason', 'Cierre de caja 3'];

      const unconfirmed = await ecf(dataDir, [...annul, '--json']);
      expect(unconfirmed.code).toBe(2);
      expect(JSON.parse(unconfirmed.stdout).error.code).toBe('Annulment.ConfirmationRequired');
      const plain = await ecf(dataDir, annul);
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain('Error [Annulment.ConfirmationRequired]: Annulling is permanent and stdin is not a terminal to confirm it; add --yes.');
      expect(JSON.parse((await ecf(dataDir, ['sequence', 'annulments', '--json'])).stdout)).toEqual([]);

      const done = await ecf(dataDir, [...annul, '--yes', '--json']);
      expect(done.code, done.stderr).toBe(0);
      const voided = JSON.parse(done.stdout);
      expect(voided).toMatchObject({ status: 'voided', totalCount: 100, taxauthCode: '15', lines: [{ type: 31, series: 'E', rangeFrom: 901, rangeTo: 1000, count: 100 }] });
      const ranges = JSON.parse((await ecf(dataDir, ['sequence', 'list', '--json'])).stdout);
      expect(ranges.find((r: { type: number }) => r.type === 31)).toMatchObject({ next: 1, remaining: 900 });

      const invalid = await ecf(dataDir, ['sequence', 'annul', '--env', 'test', '--type', '31', '--from', '950', '--to', '960', '--reason', 'otra vez', '--yes']);
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('lines[0]: E310000000950–E310000000960 overlaps numbers annulled already');
      expect(invalid.stderr).toContain('(Annulment.AlreadyAnnulled)');

      sandbox.control.script({ outcomes: [{ kind: 'http5xx' }] });
      const failing = await ecf(dataDir, ['sequence', 'annul', '--env', 'test', '--type', '32', '--from', '1', '--to', '10', '--reason', 'Rollo dañado', '--yes']);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toMatch(/status\s+failed/);
      expect(failing.stdout).toContain('HTTP 503');

      const listed = await ecf(dataDir, ['sequence', 'annulments']);
      expect(listed.code).toBe(0);
      const [header, first, second] = listed.stdout.trim().split('\n');
      expect(header).toMatch(/^ID\s+ENV\s+STATUS\s+NUMBERS\s+RANGES\s+ATTEMPTS\s+CREATEDAT\s+TAXAUTH$/);
      expect(first).toMatch(/test\s+failed\s+10\s+32:1-10\s+1\s/);
      expect(second).toMatch(/test\s+voided\s+100\s+31:901-1000\s+1\s.*15 Las secuencias fueron anuladas correctamente\.$/);
      const failedId = first!.split(/\s+/)[0]!;

      const retried = await ecf(dataDir, ['sequence', 'annul-retry', failedId, '--json']);
      expect(retried.code, retried.stderr).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({ id: failedId, status: 'voided', attempts: 2 });
      const again = await ecf(dataDir, ['sequence', 'annul-retry', failedId, '--json']);
      expect(again.code).toBe(4);
      expect(JSON.parse(again.stdout).error.code).toBe('Annulment.NotRetryable');
      expect(sandbox.control.annulments().map((a) => a.annulled)).toEqual([true, true]);
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});

describe('ecf sequence next', () => {
  it('shows the next number, moves it forward, and refuses moving back without --backwards or onto a used number', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    await seedIssuer(engine);
    await engine.close();
    const next = (...more: string[]) => ecf(dataDir, ['sequence', 'next', '--env', 'test', '--type', '31', ...more]);

    const shown = await next();
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Type 31 in test: E310000000001 is handed out next.');

    const moved = await next('--set', '56', '--json');
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ type: 31, environment: 'test', next: 56, nextEncf: 'E310000000056', previous: 1, ranges: [{ rangeFrom: 1, next: 56, remaining: 945 }] });
    const plain = await next('--set', '60');
    expect(plain.stdout).toContain('Type 31 in test: E310000000060 is handed out next (it was E310000000056).');
    expect(plain.stdout).toMatch(/\s60\s+941\s/);

    const back = await next('--set', '58');
    expect(back.code).toBe(4);
    expect(back.stderr).toContain('Error [Sequence.Backwards]: The range 1–1000 of type 31 in test hands out 60 next; moving it back to 58 would hand out 58–59 again.');
    const outside = await next('--set', '1002');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('next: 1002 is in no loaded range of type 31 in test (loaded: 1–1000) (Sequence.OutsideRange)');
    expect((await next('--set', '58', '--backwards')).code).toBe(0);
    expect(JSON.parse((await ecf(dataDir, ['sequence', 'list', '--json'])).stdout).find((r: { type: number }) => r.type === 31)).toMatchObject({ next: 58 });
  }, 180_000);
});
