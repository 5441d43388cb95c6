import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import type { SecretsPort, TaxauthPort } from '../../src/engine/engine-types.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { testDataDir } from '../helpers.js';

const saved = { key: process.env.ECF_SECRET_KEY, sandbox: process.env.ECF_TAXAUTH_SANDBOX_URL };
afterEach(() => {
  for (const [name, value] of [['ECF_SECRET_KEY', saved.key], ['ECF_TAXAUTH_SANDBOX_URL', saved.sandbox]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('the engine’s ports', () => {
  it('read ECF_TAXAUTH_SANDBOX_URL and ECF_SECRET_KEY once, when the engine opens', async () => {
    process.env.ECF_TAXAUTH_SANDBOX_URL = 'http://127.0.0.1:9/';
    process.env.ECF_SECRET_KEY = randomBytes(32).toString('base64');
    const engine = await openEngine({ dataDir: testDataDir() });
    try {
      delete process.env.ECF_TAXAUTH_SANDBOX_URL;
      delete process.env.ECF_SECRET_KEY;
      expect((await engine.taxauth.settings('cert')).baseUrl).toBe('http://127.0.0.1:9/certecf');
      expect((await engine.taxauth.statusHost()).url).toBe('http://127.0.0.1:9');
      expect(engine.secrets.keyFromEnvironment).toBe(true);
      // The settings are still read on every call.
      await setSetting(engine, 'taxauth.timeout_ms', 2500);
      expect((await engine.taxauth.client('test')).timeoutMs).toBe(2500);
    } finally {
      await engine.close();
    }
  });

  it('take the opener’s replacements', async () => {
    const secrets: SecretsPort = { current: async () => { throw new Error('not here'); }, of: () => { throw new Error('not here'); }, keyFromEnvironment: false };
    const taxauth: TaxauthPort = { client: async () => { throw new Error('offline'); }, settings: async () => { throw new Error('offline'); }, statusHost: async () => { throw new Error('offline'); }, withToken: async () => { throw new Error('offline'); } };
    const engine = await openEngine({ dataDir: testDataDir(), secrets, taxauth });
    try {
      expect(engine.secrets).toBe(secrets);
      expect(engine.taxauth).toBe(taxauth);
    } finally {
      await engine.close();
    }
  });
});
