import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openEngine } from '../src/engine/engine.js';
import { TEMPLATE_DATABASE, TEST_SERVER_URL, databaseUrl } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** On SQLite, a data directory whose store is migrated and empty: testEngine() copies its file. */
    sqliteTemplateDir: string;
  }
}

/**
 * Migrates, once per run, the store every testEngine() starts from: on PostgreSQL the template
 * database each test's database is created from; on SQLite a file each test copies (migrating a
 * new SQLite file costs about 0.1 s, and the SQLite run opens over a thousand).
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (!TEST_SERVER_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'ecf-template-'));
    // Closing checkpoints the WAL into the file: the directory then holds the one file to copy.
    await (await openEngine({ dataDir: dir })).close();
    project.provide('sqliteTemplateDir', dir);
    return () => rmSync(dir, { recursive: true, force: true });
  }
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
    await admin.query(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-template-'));
  try {
    const engine = await openEngine({ dataDir, databaseUrl: databaseUrl(TEST_SERVER_URL, TEMPLATE_DATABASE) });
    await engine.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return undefined;
}
