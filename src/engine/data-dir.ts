import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the appliance keeps its SQLite file and secret-store key:
 * the explicit flag, then ECF_DATA_DIR, then the platform's data directory.
 */
export function resolveDataDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (flag) return flag;
  if (env.ECF_DATA_DIR) return env.ECF_DATA_DIR;
  const home = env.HOME ?? env.USERPROFILE ?? homedir();
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'ecf');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'ecf');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'ecf');
}

export const DATABASE_FILE = 'ecf.sqlite';
export const SECRET_KEY_FILE = 'secret-store.key';
/** Optional: a PostgreSQL URL (one line) that puts this data directory's store in PostgreSQL. */
export const DATABASE_URL_FILE = 'database-url';
