import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZipReader } from '../../../src/engine/export/zip-reader.js';
import { ZipWriter } from '../../../src/engine/export/zip-writer.js';
import { tempDir } from '../../helpers.js';

const AT = new Date('2026-10-31T12:00:00Z');

/** Debian's unzip says the archive is sound and gives back each entry's bytes. */
function unzipAgrees(file: string, entries: readonly { name: string; data: Buffer }[]) {
  const tested = spawnSync('unzip', ['-tqq', file], { encoding: 'utf8' });
  expect(tested.status, tested.stdout + tested.stderr).toBe(0);
  for (const e of entries) expect(execFileSync('unzip', ['-p', file, e.name.replace(/[[\]*?\\]/g, '\\$&')], { maxBuffer: 1 << 26 }).equals(e.data), e.name).toBe(true);
}

describe('the streaming ZIP writer', () => {
  it('any names and sizes, from buffers and streamed files: unzip -t passes, unzip and the reader give the bytes back', async () => {
    const name = fc.array(fc.stringMatching(/^[a-zA-Z0-9 ñáé_.-]{1,12}$/), { minLength: 1, maxLength: 3 }).map((p) => p.join('/')).filter((n) => !n.startsWith('-') && !n.endsWith('.') && !n.includes('/.') && !n.startsWith('.'));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.record({ name, data: fc.uint8Array({ maxLength: 70_000 }), streamed: fc.boolean() }), { selector: (e) => e.name.toLowerCase(), minLength: 1, maxLength: 8 }), async (raw) => {
        const dir = tempDir('ecf-zip-');
        const file = join(dir, 'a.zip');
        const zip = new ZipWriter(file, AT);
        const entries = raw.map((e) => ({ ...e, data: Buffer.from(e.data) }));
        for (const [i, e] of entries.entries()) {
          let info;
          if (e.streamed) {
            const source = join(dir, `source-${i}`);
            writeFileSync(source, e.data);
            info = await zip.addFile(e.name, source);
          } else info = zip.addBuffer(e.name, e.data);
          expect(info).toEqual({ name: e.name, size: e.data.length, sha256: createHash('sha256').update(e.data).digest('hex') });
        }
        await zip.finish();
        unzipAgrees(file, entries);
        const reader = new ZipReader(file);
        try {
          const read = [...reader.entries()];
          expect(read.map((r) => r.name)).toEqual(entries.map((e) => e.name));
          for (const [i, r] of read.entries()) {
            expect(reader.read(r).equals(entries[i]!.data)).toBe(true);
            const pieces: Buffer[] = [];
            for await (const p of reader.stream(r)) pieces.push(p);
            expect(Buffer.concat(pieces).equals(entries[i]!.data)).toBe(true);
          }
        } finally {
          reader.close();
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it('more than 65,535 entries: ZIP64 end records that zipinfo and unzip -t read', async () => {
    const file = join(tempDir('ecf-zip64-'), 'many.zip');
    const zip = new ZipWriter(file, AT, 1);
    const count = 65_600;
    for (let i = 0; i < count; i++) zip.addBuffer(`d/${i}.txt`, Buffer.from(String(i)));
    await zip.finish();
    const tested = spawnSync('unzip', ['-tqq', file], { encoding: 'utf8' });
    expect(tested.status, tested.stdout + tested.stderr).toBe(0);
    const info = execFileSync('zipinfo', ['-t', file], { encoding: 'utf8' });
    expect(info).toContain(`${count} files`);
    const reader = new ZipReader(file);
    expect(reader.count).toBe(count);
    let last = null;
    for (const e of reader.entries()) last = e;
    expect(reader.read(last!).toString()).toBe(String(count - 1));
    reader.close();
  }, 60_000);
});
