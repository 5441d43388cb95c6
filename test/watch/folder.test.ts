import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { ecfXml } from '../../src/engine/ecf/queries.js';
import { watchFolder, type FolderWatcher, type WatchResult } from '../../src/watch/folder.js';
import { invoice31, seedIssuer, tempDir, testEngine } from '../helpers.js';

/** The watcher in process, over a real folder: what lands where, and what the result JSON says. */

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as WatchResult;

async function setup() {
  const engine = await testEngine();
  const { tenant } = await seedIssuer(engine);
  const dir = tempDir('ecf-watch-');
  const watchers: FolderWatcher[] = [];
  const start = async (extra: { follow?: boolean } = {}) => {
    const w = await watchFolder({ engine, tenantId: tenant.id, dir, settleMs: 50, pollMs: 100, ...extra });
    watchers.push(w);
    return w;
  };
  const stopAll = async () => {
    for (const w of watchers.splice(0)) await w.close();
  };
  return { engine, tenant, dir, start, stopAll };
}

describe('watchFolder', () => {
  it('issues a dropped payload into done with its signed XML, PDF and result; failures go to failed with every error', async () => {
    const { engine, tenant, dir, start, stopAll } = await setup();
    try {
      await start();
      writeFileSync(join(dir, 'inbox', 'pedido-1.json'), JSON.stringify(invoice31({ internalNumber: 'P-1' })));
      writeFileSync(join(dir, 'inbox', 'malo.json'), JSON.stringify(invoice31({ lines: [], payment: undefined })));
      writeFileSync(join(dir, 'inbox', 'roto.json'), '{"type": 31, ');
      writeFileSync(join(dir, 'inbox', 'nota.txt'), 'hola');
      writeFileSync(join(dir, 'inbox', 'x.result.json'), JSON.stringify(invoice31()));
      writeFileSync(join(dir, 'inbox', 'pedido-2.json.tmp'), '{"half": ');
      writeFileSync(join(dir, 'inbox', '.pedido-3.json'), '{"half": ');
      await vi.waitFor(() => expect(readdirSync(join(dir, 'inbox')).sort()).toEqual(['.pedido-3.json', 'pedido-2.json.tmp']), { timeout: 20_000, interval: 50 });
      await vi.waitFor(() => expect(readdirSync(join(dir, 'processing'))).toEqual([]), { timeout: 20_000, interval: 50 });

      expect(readdirSync(join(dir, 'done')).sort()).toEqual(['pedido-1.json', 'pedido-1.pdf', 'pedido-1.result.json', 'pedido-1.xml']);
      const ok = readJson(join(dir, 'done', 'pedido-1.result.json'));
      expect(ok).toMatchObject({ file: 'pedido-1.json', ok: true, created: true, idempotencyKey: 'watch:pedido-1.json', status: 'signed' });
      expect(ok.encf).toMatch(/^E31\d{10}$/);
      expect(ok.securityCode).toMatch(/^.{6}$/);
      expect(ok.qrUrl).toContain('consultatimbre');
      const stored = await ecfXml(engine, tenant.id, ok.id!);
      expect(readFileSync(join(dir, 'done', 'pedido-1.xml')).equals(stored.bytes)).toBe(true);
      expect(readFileSync(join(dir, 'done', 'pedido-1.pdf')).subarray(0, 5).toString()).toBe('%PDF-');

      expect(readdirSync(join(dir, 'failed')).sort()).toEqual([
        'malo.json', 'malo.result.json', 'nota.txt', 'nota.txt.result.json', 'roto.json', 'roto.result.json', 'x.result.json', 'x.result.result.json',
      ]);
      expect(readJson(join(dir, 'failed', 'x.result.result.json')).error!.code).toBe('Watch.ReservedName');
      const bad = readJson(join(dir, 'failed', 'malo.result.json'));
      expect(bad.ok).toBe(false);
      expect(bad.error!.code).toBe('Validation.Failed');
      expect(bad.error!.errors!.map((e) => e.path)).toEqual(expect.arrayContaining(['lines']));
      expect(bad.error!.errors!.length).toBeGreaterThan(1);
      expect(readJson(join(dir, 'failed', 'roto.result.json')).error!.code).toBe('Watch.NotJson');
      expect(readJson(join(dir, 'failed', 'nota.txt.result.json')).error!.code).toBe('Watch.NotJsonFile');
      expect(readFileSync(join(dir, 'failed', 'roto.json'), 'utf8')).toBe('{"type": 31, ');
    } finally {
      await stopAll();
    }
  });

  it('a name dropped again is kept beside the first (NAME~2) with the same e-CF; a second internalNumber file too', async () => {
    const { engine, dir, start, stopAll } = await setup();
    try {
      await start();
      const body = JSON.stringify(invoice31({ internalNumber: 'P-7' }));
      writeFileSync(join(dir, 'inbox', 'p7.json'), body);
      await vi.waitFor(() => expect(existsSync(join(dir, 'done', 'p7.json'))).toBe(true), { timeout: 20_000, interval: 50 });
      writeFileSync(join(dir, 'inbox', 'p7.json'), body);
      writeFileSync(join(dir, 'inbox', 'otra-vez-p7.json'), body);
      await vi.waitFor(() => expect(existsSync(join(dir, 'done', 'p7~2.json')) && existsSync(join(dir, 'done', 'otra-vez-p7.json'))).toBe(true), {
        timeout: 20_000,
        interval: 50,
      });
      const first = readJson(join(dir, 'done', 'p7.result.json'));
      const again = readJson(join(dir, 'done', 'p7~2.result.json'));
      const other = readJson(join(dir, 'done', 'otra-vez-p7.result.json'));
      expect(again).toMatchObject({ ok: true, created: false, id: first.id, file: 'p7~2.json' });
      expect(again.files).toMatchObject({ xml: 'p7~2.xml', pdf: 'p7~2.pdf', result: 'p7~2.result.json' });
      expect(other).toMatchObject({ ok: true, created: false, id: first.id });
      const rows = await engine.db.selectFrom('ecf').select('id').execute();
      expect(rows).toHaveLength(1);
    } finally {
      await stopAll();
    }
  });

  it('finishes a file left in processing by a run that stopped after issuing it, without issuing it again', async () => {
    const { engine, tenant, dir, start, stopAll } = await setup();
    try {
      mkdirSync(join(dir, 'processing'), { recursive: true });
      const payload = invoice31({ internalNumber: 'P-9' });
      // The stopped run had issued it (same key), written part of its results, and not moved it yet.
      const before = await issueEcf(engine, tenant.id, { idempotencyKey: 'watch:p9.json', payload });
      writeFileSync(join(dir, 'processing', 'p9.json'), JSON.stringify(payload));
      mkdirSync(join(dir, 'done'), { recursive: true });
      writeFileSync(join(dir, 'done', 'p9.xml'), 'half');
      const w = await start();
      await w.ready;
      expect(readdirSync(join(dir, 'processing'))).toEqual([]);
      const r = readJson(join(dir, 'done', 'p9.result.json'));
      expect(r).toMatchObject({ ok: true, created: false, id: before.ecf.id, file: 'p9.json' });
      expect(readFileSync(join(dir, 'done', 'p9.xml')).equals((await ecfXml(engine, tenant.id, before.ecf.id)).bytes)).toBe(true);
      expect(await engine.db.selectFrom('ecf').select('id').execute()).toHaveLength(1);
      expect(w.counts).toMatchObject({ done: 1, failed: 0 });
    } finally {
      await stopAll();
    }
  });

  it('refuses a second watcher on the same folder while the first runs', async () => {
    const { start, stopAll } = await setup();
    try {
      await start();
      await expect(start()).rejects.toMatchObject({ code: 'Watch.FolderBusy' });
    } finally {
      await stopAll();
    }
  });

  it('--follow rewrites the result JSON when the verdict arrives', async () => {
    const { engine, dir, start, stopAll } = await setup();
    try {
      await start({ follow: true });
      writeFileSync(join(dir, 'inbox', 'f1.json'), JSON.stringify(invoice31({ internalNumber: 'F-1' })));
      await vi.waitFor(() => expect(existsSync(join(dir, 'done', 'f1.json'))).toBe(true), { timeout: 20_000, interval: 50 });
      const first = readJson(join(dir, 'done', 'f1.result.json'));
      expect(first.status).toBe('signed');
      // The verdict, as the submission job records it.
      await engine.db.updateTable('ecf').set({ status: 'accepted' }).where('id', '=', first.id!).execute();
      await vi.waitFor(() => expect(readJson(join(dir, 'done', 'f1.result.json')).status).toBe('accepted'), { timeout: 20_000, interval: 50 });
      const after = readJson(join(dir, 'done', 'f1.result.json'));
      expect(after.ecf!.status).toBe('accepted');
      expect(after.processedAt).toBe(first.processedAt);
    } finally {
      await stopAll();
    }
  });
});
