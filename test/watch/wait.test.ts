import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { setSetting } from '../../src/engine/settings/settings.js';
import { watchFolder, type WatchResult } from '../../src/watch/folder.js';
import { harness } from '../engine/submission/harness.js';
import { invoice31, tempDir } from '../helpers.js';

/** The folder drop honours the tenant's issuing.wait_for_verdict_seconds, as POST /api/v1/ecf does. */
describe('folder drop and the tenant’s wait for the verdict', () => {
  it('writes the verdict into the result when the tenant waits for it, and signed otherwise', async () => {
    const h = await harness();
    const dir = tempDir('ecf-watch-wait-');
    const watcher = await watchFolder({ engine: h.engine, tenantId: h.tenant.id, dir, settleMs: 50, pollMs: 100 });
    const drop = async (name: string) => {
      writeFileSync(join(dir, 'inbox', `${name}.json`), JSON.stringify(invoice31({ internalNumber: name })));
      const file = join(dir, 'done', `${name}.result.json`);
      await vi.waitFor(() => expect(JSON.parse(readFileSync(file, 'utf8'))).toBeTruthy(), { timeout: 30_000, interval: 50 });
      return JSON.parse(readFileSync(file, 'utf8')) as WatchResult;
    };
    try {
      expect((await drop('no-wait')).status).toBe('signed');
      await setSetting(h.engine, 'issuing.wait_for_verdict_seconds', 5, h.tenant.id);
      const waited = await drop('wait');
      expect(waited).toMatchObject({ ok: true, status: 'accepted', ecf: { status: 'accepted', taxauth: { statusCode: 1 } } });
    } finally {
      await watcher.close();
    }
  }, 60_000);
});
