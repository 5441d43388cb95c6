import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

/** Mode of every file of the SQLite store: it holds fiscal and personal data, like the secrets beside it. */
export const STORE_FILE_MODE = 0o600;

/** The files SQLite keeps beside the database in WAL mode. */
export const walCompanions = (file: string): string[] => [`${file}-wal`, `${file}-shm`];

/**
 * Makes the database file and its companions readable by their owner only,
 * before SQLite opens them. The file is created here with mode 0600 when
 * absent; SQLite's Unix VFS gives the -wal and -shm files it creates the
 * database file's mode, whatever the process umask, so they follow. Files
 * left group- or world-readable by an earlier version are tightened. Windows
 * has no such modes: there the data directory's access list (the installer
 * sets it) is what keeps others out.
 */
export function restrictStoreFiles(file: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32' || file === ':memory:' || file === '') return;
  try {
    closeSync(openSync(file, 'wx', STORE_FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (const path of [file, ...walCompanions(file)]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue; // no WAL yet: SQLite creates it with the database file's mode
    }
    // Exactly 0600: a umask that also took owner bits (0277) must not leave a file SQLite cannot write.
    if (mode === STORE_FILE_MODE) continue;
    try {
      chmodSync(path, STORE_FILE_MODE);
    } catch (e) {
      // Another user's file (a process of another account sharing the directory): its owner's next open tightens it.
      if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
    }
  }
}
