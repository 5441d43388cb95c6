import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The PostgreSQL run (ECF_TEST_DATABASE_URL) exists to prove the store, so it runs the engine's
 * tests, where the store is used, and leaves to the SQLite run what only sits on top of it:
 * the doors (CLI and HTTP adapters, the folder drop, the sandbox), rendering, and the parts
 * that never open a store (the document pipeline, XML and signing, the installers, the
 * workbooks and plan, the sandbox's load model). Process-level tests that prove the
 * PostgreSQL wiring itself stay: a store moved into PostgreSQL, nodes sharing one database
 * (test/engine/store, submission, reception), the folder drop's crash test, the jobs, and the big-store
 * bench's PostgreSQL loader.
 */
const POSTGRES_RUN = ['test/engine/**/*.test.ts', 'test/jobs/**/*.test.ts', 'test/watch/crash.test.ts', 'test/cli/migrate-store.test.ts', 'test/bench/bulk-load-pg.test.ts'];
const NOT_ON_POSTGRES = [
  'test/engine/documents/**',
  'test/engine/xml/**',
  'test/engine/signing/**',
  'test/engine/representation/**',
  'test/engine/certification/{workbook,row-document,flatten,plan,print}.test.ts',
  // The engine areas' door tests: the same engine functions are tested under them on both stores.
  'test/engine/**/{cli,http}.test.ts',
  'test/engine/**/*-cli.test.ts',
  'test/engine/webhooks/address-guard.test.ts',
];
const onPostgres = Boolean(process.env.ECF_TEST_DATABASE_URL);

export default defineConfig({
  test: {
    include: onPostgres ? POSTGRES_RUN : ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(onPostgres ? NOT_ON_POSTGRES : [])],
    // On PostgreSQL (ECF_TEST_DATABASE_URL) the template database every test copies.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two workers on these 2-core machines (vitest's default is cores − 1: one). Measured on the
    // SQLite run: 713 s with two, the processes using 1.7 cores on average (20.5 CPU-minutes in
    // 11.9), where one worker left the second core idle while a file waited on a child process,
    // the sandbox's latency or an fsync; more than two only adds contention.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
