import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { table } from '../render.js';
import { DATABASE_FILE } from '../../engine/data-dir.js';
import { databaseUrlOf, openEngine } from '../../engine/engine.js';
import type { Engine } from '../../engine/engine-types.js';
import { keychainAvailable, secretKeyMissing, secretKeyState } from '../../engine/secrets/index.js';
import { authorityChecks, certificateChecks, sequenceChecks, type HealthCheck } from '../../engine/health/index.js';

export type DoctorCheck = HealthCheck;

const POSIX = process.platform !== 'win32';
const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(3, '0');

export default class Doctor extends EcfCommand {
  static override description =
    'Check the data directory, database, the checks GET /readyz runs (store, migrations, secret store, what submissions recorded about the tax authority), certificates, e-NCF stock, the tax authority per environment in use and the clock against it; prints what to fix, exits 1 when any check fails';
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --data-dir /var/lib/ecf --json', '<%= config.bin %> doctor --offline'];
  static override flags = {
    offline: Flags.boolean({ description: 'Skip the checks that reach the tax authority (reachability, clock)' }),
  };

  async run() {
    const { flags } = await this.parse(Doctor);
    // Loaded here, not at the top: every command's module is loaded on each start of `ecf`.
    const { READINESS_CHECKS, runReadiness } = await import('../../engine/health/index.js');
    const dataDir = this.dataDir(flags);
    const checks: DoctorCheck[] = [];
    const add = (check: string, status: DoctorCheck['status'], detail: string) => checks.push({ check, status, detail });

    const dirOk = checkDataDir(dataDir, add);
    let url: string | undefined;
    try {
      url = databaseUrlOf({ dataDir });
    } catch (err) {
      add('database', 'fail', reason(err));
    }
    const dbFile = url ? withoutPassword(url) : join(dataDir, DATABASE_FILE);
    let engine: Engine | undefined;
    if (!dirOk) {
      add('database', 'fail', `not checked: the data directory ${dataDir} is not usable`);
    } else if (!url && !existsSync(dbFile)) {
      add('database', 'fail', `no database at ${dbFile}; run \`ecf init\``);
    } else {
      try {
        // Opened without migrating: the doctor reports and changes nothing.
        engine = await openEngine({ dataDir, migrate: false });
      } catch (err) {
        add('database', 'fail', `${dbFile} cannot be opened: ${reason(err)}`);
      }
    }
    try {
      if (engine) {
        await checkDatabase(engine, dbFile, add);
        // Online, a status snapshot older than its lifetime is read again first, so the shared check shows a fresh one.
        if (!flags.offline) await refreshAuthorityStatus(engine);
        // The same checks GET /readyz runs, with their detail; the scheduler's only applies inside `ecf serve`.
        for (const c of (await runReadiness(engine)).checks) add(c.name, c.status, c.detail);
        await checkSecretKey(engine, add);
        await checkTenants(engine, add, flags.offline);
      } else {
        for (const c of READINESS_CHECKS) {
          if (c.name !== 'scheduler') add(c.name, 'fail', 'not checked: no usable database');
        }
      }
    } finally {
      await engine?.close();
    }
    const keychain = await keychainAvailable();
    add(
      'keychain',
      keychain ? 'ok' : 'warn',
      keychain
        ? 'an OS keychain answers'
        : 'no OS keychain answers (on Linux: an unlocked Secret Service such as gnome-keyring); with secrets.store auto or file, secrets are kept in encrypted files',
    );

    // Exit 1 once the checks are printed (as JSON too): a failed check is an answer, not an error.
    if (checks.some((c) => c.status === 'fail')) process.exitCode = 1;
    this.log(table(checks, ['check', 'status', 'detail']));
    return { checks };
  }

}

type Add = (check: string, status: DoctorCheck['status'], detail: string) => void;

/** Reads the authority's status services when the stored snapshot is stale; what fails there, the check reports. */
async function refreshAuthorityStatus(engine: Engine): Promise<void> {
  const { authorityStatus } = await import('../../engine/taxauth/index.js');
  try {
    await authorityStatus(engine, { refresh: 'stale' });
  } catch {
    // The taxauth-status check says what is wrong from the snapshot (or its absence).
  }
}

async function checkTenants(engine: Engine, add: Add, offline: boolean): Promise<void> {
  const groups: [string, () => Promise<HealthCheck[]>][] = [
    ['certificates', () => certificateChecks(engine)],
    ['sequences', () => sequenceChecks(engine)],
  ];
  if (!offline) groups.push(['authority', () => authorityChecks(engine)]);
  for (const [name, run] of groups) {
    try {
      for (const c of await run()) add(c.check, c.status, c.detail);
    } catch (err) {
      add(name, 'fail', `not checked: ${reason(err)}`);
    }
  }
}

function checkDataDir(dataDir: string, add: Add): boolean {
  let mode: number;
  try {
    const stat = statSync(dataDir);
    if (!stat.isDirectory()) {
      add('data-dir', 'fail', `${dataDir} is not a directory`);
      return false;
    }
    mode = stat.mode;
  } catch {
    add('data-dir', 'fail', `${dataDir} does not exist; run \`ecf init\``);
    return false;
  }
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    add('data-dir', 'fail', `${dataDir} is not readable and writable by this user`);
    return false;
  }
  if (POSIX && (mode & 0o077) !== 0) {
    add('data-dir', 'warn', `${dataDir} is open to group or others (mode ${octal(mode)}); run: chmod 700 '${dataDir}'`);
  } else {
    add('data-dir', 'ok', `${dataDir} exists and is writable${POSIX ? ', by its owner only' : ''}`);
  }
  return true;
}

/** The URL as it may be shown: never its password. */
function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

async function checkDatabase(engine: Engine, dbFile: string, add: Add): Promise<void> {
  if (engine.dialect === 'postgres') {
    // PostgreSQL keeps its own pages whole (checksums, WAL); the doctor checks it answers.
    try {
      const { rows } = await sql<{ version: string }>`select current_setting('server_version') as version`.execute(engine.db);
      add('database', 'ok', `${dbFile}: PostgreSQL ${rows[0]!.version} answers`);
    } catch (err) {
      add('database', 'fail', `${dbFile} does not answer: ${reason(err)}`);
    }
    return;
  }
  try {
    const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(engine.db);
    // One row per problem, and a row may hold several lines.
    const results = rows.flatMap((r) => String(Object.values(r)[0]).split('\n')).filter((line) => line.trim() !== '');
    if (results.length === 1 && results[0] === 'ok') {
      add('database', 'ok', `${dbFile}: integrity check ok`);
    } else {
      const shown = results.slice(0, 3).join('; ');
      add('database', 'fail', `${dbFile} is damaged: ${shown}${results.length > 3 ? ` (and ${results.length - 3} more)` : ''}`);
    }
  } catch (err) {
    add('database', 'fail', `${dbFile} is damaged: ${reason(err)}`);
  }
}

/**
 * The file store's key: from the environment, or a file only its owner reads.
 * Only reported: a missing key is never made here, and is a failure while
 * secrets sealed under it remain (only that key opens them).
 */
async function checkSecretKey(engine: Engine, add: Add): Promise<void> {
  let kind: 'keychain' | 'file';
  try {
    kind = (await engine.secrets.current()).kind;
  } catch {
    return; // The secret-store readiness check has said why.
  }
  const state = await secretKeyState(engine);
  if (state.source === 'environment') {
    if (kind === 'file' || state.sealed.count > 0) add('secret-key', 'ok', 'the file store key comes from ECF_SECRET_KEY');
    return;
  }
  if (state.source === 'absent') {
    if (state.sealed.count > 0) add('secret-key', 'fail', secretKeyMissing(engine.dataDir, state.sealed).message);
    else if (kind === 'file') add('secret-key', 'ok', `${state.file} is not made yet; the first secret stored makes it (so does \`ecf init\`)`);
    return;
  }
  if (kind !== 'file' && state.sealed.count === 0) return;
  try {
    const mode = statSync(state.file).mode & 0o777;
    if (!POSIX || mode === 0o600) add('secret-key', 'ok', `${state.file}${POSIX ? ' has mode 600' : ' exists'}`);
    else add('secret-key', 'warn', `${state.file} has mode ${octal(mode)}; run: chmod 600 '${state.file}'`);
  } catch (err) {
    add('secret-key', 'fail', `${state.file} cannot be read: ${reason(err)}`);
  }
}
