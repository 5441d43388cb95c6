import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEngine } from '../src/engine/engine.js';
import { TEMPLATE_DATABASE, TEST_SERVER_URL, databaseUrl } from './postgres.js';

/** On PostgreSQL, migrates the template database every test's database is copied from. */
export default async function setup(): Promise<void> {
  if (!TEST_SERVER_URL) return;
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
}
