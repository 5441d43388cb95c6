import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that never open a store: the document pipeline, XML and signing, the
 * installers, the certification workbooks and plan, the sandbox's load model.
 * The PostgreSQL run (ECF_TEST_DATABASE_URL) exists to prove the store, so it
 * leaves them to the SQLite run instead of running them a second time.
 */
const STORE_FREE = [
  'test/engine/documents/**',
  'test/engine/xml/**',
  'test/engine/signing/**',
  'test/installers/**',
  'test/engine/certification/{workbook,row-document,flatten,plan}.test.ts',
  'test/sandbox/{load,load-flags,status-services}.test.ts',
  'test/engine/webhooks/address-guard.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(process.env.ECF_TEST_DATABASE_URL ? STORE_FREE : [])],
    // On PostgreSQL (ECF_TEST_DATABASE_URL) the template database every test copies.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
