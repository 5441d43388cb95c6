import { createHash } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../data-dir.js';
import type { Engine } from '../engine.js';
import { EngineError } from '../errors.js';
import { storeOf } from '../secrets/select.js';
import { BUSY_TIMEOUT_MS } from '../store/database.js';
import { MAGIC, checkPassphrase, seal, type Manifest } from './format.js';
import { secretReferences } from './secret-refs.js';

const ALL_PAGES = 2 ** 30;

export interface BackupResult {
  readonly file: string;
  readonly createdAt: string;
  readonly databaseBytes: number;
  readonly secrets: number;
  /** Rows that point at a secret the store no longer holds (their certificate cannot sign anyway). */
  readonly missingSecrets: readonly string[];
}

/**
 * Writes a backup of the data directory to `file`: a consistent snapshot of
 * the database taken with SQLite's online backup API while the appliance
 * keeps working, and the secrets its rows point at, sealed with the
 * passphrase. The file appears only once complete, readable by its owner.
 */
export async function backupDataDir(engine: Engine, file: string, passphrase: string): Promise<BackupResult> {
  if (engine.dialect === 'postgres') {
    throw new EngineError(
      'conflict',
      'Backup.PostgresStore',
      'The store is in PostgreSQL: back it up with pg_dump (or the server\'s own backups); the secrets live in the encrypted-file store of each node.',
    );
  }
  checkPassphrase(passphrase);
  const target = resolve(file);
  if (existsSync(target)) {
    throw new EngineError('conflict', 'Backup.FileExists', `${target} already exists; choose another name (a backup never overwrites a file).`);
  }
  const snapshotFile = join(dirname(target), `.${Date.now().toString(36)}-${process.pid}.ecf-backup-db`);
  const partial = `${target}.partial`;
  try {
    const source = new SQLite(join(engine.dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
    try {
      source.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // After the first step, everything else in one step: a single read
      // transaction, so the copy is one consistent snapshot. Copied in small
      // steps, every commit of the running server would restart it.
      // The snapshot is the whole store in clear: readable by the owner only, like the store itself.
      closeSync(openSync(snapshotFile, 'wx', 0o600));
      await source.backup(snapshotFile, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }

    const snapshot = new SQLite(snapshotFile, { readonly: true });
    let references;
    let schema: string | null;
    try {
      references = secretReferences(snapshot);
      schema = (snapshot.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined)?.name ?? null;
    } finally {
      snapshot.close();
    }
    const secrets: { name: string; value: string }[] = [];
    const missingSecrets: string[] = [];
    for (const r of references) {
      const value = await storeOf(engine, r.store).get(r.ref);
      if (value) secrets.push({ name: r.ref, value: value.toString('base64') });
      else missingSecrets.push(`${r.table}: ${r.ref}`);
    }

    const databaseBytes = statSync(snapshotFile).size;
    const databaseSha256 = await sha256Of(snapshotFile);
    const createdAt = engine.clock.now().toISOString();
    const manifest: Manifest = {
      format: 'ecf-backup',
      version: 1,
      createdAt,
      databaseBytes,
      schema,
      secretCount: secrets.length,
      ...seal(passphrase, { databaseSha256, secrets }),
    };
    const out = createWriteStream(partial, { mode: 0o600, flags: 'wx' });
    out.write(MAGIC);
    out.write(`${JSON.stringify(manifest)}\n`);
    await pipeline(createReadStream(snapshotFile), out);
    renameSync(partial, target);
    return { file: target, createdAt, databaseBytes, secrets: secrets.length, missingSecrets };
  } finally {
    rmSync(snapshotFile, { force: true });
    rmSync(partial, { force: true });
  }
}

export async function sha256Of(file: string, start = 0): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { start })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
