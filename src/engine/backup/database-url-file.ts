import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_URL_FILE } from '../data-dir.js';
import { EngineError } from '../errors.js';

/**
 * A data directory restored onto PostgreSQL remembers where its store is, in
 * its `database-url` file: without it, the next command run without
 * ECF_DATABASE_URL would open (and create) an empty SQLite store there and
 * carry on as if the restored data did not exist.
 */
const fileOf = (dataDir: string): string => join(dataDir, DATABASE_URL_FILE);

/** Checked before anything is written: the file, if present, must name the database the restore fills. */
export function refuseOtherDatabaseUrl(dataDir: string, url: string): void {
  const file = fileOf(dataDir);
  if (!existsSync(file)) return;
  const recorded = readFileSync(file, 'utf8').trim();
  if (recorded === url) return;
  throw new EngineError(
    'conflict',
    'Restore.DatabaseUrlConflict',
    `${file} names another database (${shown(recorded)}) than the one this restore would fill (${shown(url)}, from ECF_DATABASE_URL); ` +
      'unset ECF_DATABASE_URL to restore into the database the file names, or restore into another data directory.',
  );
}

/** Written once the restore succeeded, readable by its owner only (the URL may hold a password). */
export function recordDatabaseUrl(dataDir: string, url: string): boolean {
  const file = fileOf(dataDir);
  if (existsSync(file)) return false;
  writeFileSync(file, `${url}\n`, { mode: 0o600, flag: 'wx' });
  return true;
}

function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}
