import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { parseBlob } from '../../src/engine/store/documents/index.js';
import { waitUntil, testDataDir } from '../helpers.js';
import { startServe } from '../serve-process.js';
import { compressKilled } from '../engine/store/documents/compress-killed.js';
import { makeRawStore } from '../engine/store/documents/raw-store.js';

describe('ecf serve over a store an older release left raw', () => {
  it('converts it in the background and answers meanwhile: the XML of converted and not yet converted e-CF, byte-exact', async () => {
    const dataDir = testDataDir();
    const raw = await makeRawStore(dataDir, { ecf: 8 });
    // Half converted, as an upgrade stopped midway leaves it: some blobs compressed, some raw.
    await compressKilled(dataDir, 5);
    const layouts = async () => {
      const engine = await openEngine({ dataDir });
      try {
        return (await engine.db.selectFrom('ecf_documents').select('xml').execute()).map((r) => parseBlob(r.xml).kind);
      } finally {
        await engine.close();
      }
    };
    const before = await layouts();
    expect(before).toContain('raw');
    expect(before).toContain('compressed');

    const { child, base, output } = await startServe(dataDir, { logLevel: 'info', args: ['--sandbox'] });
    try {
      const xmlOf = async (id: string, rfce = false) => {
        const r = await fetch(`${base}/api/v1/ecf/${id}/xml${rfce ? '?rfce=true' : ''}`, { headers: { 'x-api-key': raw.key } });
        expect(r.status).toBe(200);
        return Buffer.from(await r.arrayBuffer());
      };
      const everyXml = async () => {
        for (const d of raw.documents.filter((x) => x.table === 'ecf_documents')) expect((await xmlOf(d.id, d.column === 'rfce_xml')).equals(d.bytes), `${d.column} of ${d.encf}`).toBe(true);
      };
      // Asked at once: the conversion runs meanwhile (the answers are right whichever layout each blob is in).
      await everyXml();
      await waitUntil(() => /stored documents compressed/.test(output()), 'the background conversion to end');
      expect(output()).toMatch(/compressing stored documents: ecf_documents \d+\/\d+ rows/);
      await everyXml();
    } finally {
      child.kill('SIGTERM');
    }
    expect((await once(child, 'exit'))[0]).toBe(0);
    expect(await layouts()).toEqual(before.map(() => 'compressed'));
  }, 120_000);
});
