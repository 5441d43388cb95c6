import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { tempDir, testEngine } from '../helpers.js';

/** `npm run build` (which the tests run after) writes them here. */
const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'console', 'assets');

afterEach(() => {
  delete process.env.ECF_CONSOLE_ASSETS;
});

describe('the console assets', () => {
  it('are linked by their hashed names and served with immutable caching, brotli or gzip as the browser accepts', async () => {
    const manifest = JSON.parse(readFileSync(join(BUILT, 'manifest.json'), 'utf8')) as Record<string, string>;
    expect(manifest['console.css']).toMatch(/^console-[A-Z0-9]{8}\.css$/);
    expect(manifest['console.js']).toMatch(/^console-[A-Z0-9]{8}\.js$/);
    const app = await buildApp({ engine: await testEngine() });
    try {
      const page = await app.inject({ method: 'GET', url: '/console/sign-in' });
      expect(page.body).toContain(`<link rel="stylesheet" href="/console/assets/${manifest['console.css']}">`);
      expect(page.body).toContain(`<script src="/console/assets/${manifest['console.js']}" defer></script>`);
      expect(page.body).not.toContain('no están construidos');

      const url = `/console/assets/${manifest['console.js']}`;
      const source = readFileSync(join(BUILT, manifest['console.js']!));
      const plain = await app.inject({ method: 'GET', url });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.equals(source)).toBe(true);
      expect(source.toString()).toContain('data-poll');

      const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).equals(source)).toBe(true);
      const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br;q=0' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).equals(source)).toBe(true);
      expect(gz.headers.vary).toContain('accept-encoding');

      const css = await app.inject({ method: 'GET', url: `/console/assets/${manifest['console.css']}` });
      expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
      // Only the manifest's names: nothing else on disk is reachable.
      for (const other of ['manifest.json', `${manifest['console.js']}.br`, '..%2F..%2Fpackage.json', 'console.ts']) {
        expect((await app.inject({ method: 'GET', url: `/console/assets/${other}` })).statusCode, other).toBe(404);
      }
    } finally {
      await app.close();
    }
  });

  it('when not built, the pages say so and still work', async () => {
    process.env.ECF_CONSOLE_ASSETS = tempDir('ecf-no-assets-');
    const app = await buildApp({ engine: await testEngine() });
    try {
      const page = await app.inject({ method: 'GET', url: '/console/sign-in' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('no están construidos');
      expect(page.body).not.toContain('<script');
      expect(page.body).toContain('<form method="post" action="/console/sign-in"');
    } finally {
      await app.close();
    }
  });
});
