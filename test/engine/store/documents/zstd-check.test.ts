import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The codec's check that node:zlib honours zstd dictionaries, run in a child whose zlib is made to
// behave as Node 22.15–22.18 and 24.0–24.5 do (the option accepted and ignored).
describe('zstd dictionaries', () => {
  const run = (patch: string) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import zlib from 'node:zlib';
         ${patch}
         const { compressDocument } = await import('./src/engine/store/documents/codec.ts');
         try { await compressDocument(Buffer.from('<ECF>hola</ECF>'), 1); console.log('stored'); } catch (e) { console.log(e.message); }`,
      ],
      { encoding: 'utf8', cwd: process.cwd() },
    );

  it('refuses a Node whose zstd ignores the dictionary, naming the versions it needs', () => {
    const ignoring = run(`const c = zlib.zstdCompressSync, d = zlib.zstdDecompressSync, a = zlib.zstdCompress;
      zlib.zstdCompressSync = (b, o = {}) => c(b, { ...o, dictionary: undefined });
      zlib.zstdDecompressSync = (b, o = {}) => d(b, { ...o, dictionary: undefined });
      zlib.zstdCompress = (b, o, cb) => a(b, { ...o, dictionary: undefined }, cb);
      (await import('node:module')).syncBuiltinESMExports();`);
    expect(ignoring.stdout).toContain('ignores zstd dictionaries: stored documents need Node.js 22.19 or newer, or 24.6 or newer');
  });

  it('stores on this Node', () => {
    expect(run('').stdout.trim()).toBe('stored');
  });
});
