import { EngineError } from '../engine/errors.js';
import { askPassword, readStdinLine, stdinIsTty } from './prompts.js';

/**
 * The backup passphrase: from stdin with --passphrase-stdin, else from
 * ECF_BACKUP_PASSPHRASE (scheduled scripts), else asked at the terminal
 * without echo (twice when it seals a new backup, so a typo cannot lock the
 * operator out of their own certificates).
 */
export async function backupPassphrase(fromStdin: boolean, confirmTwice: boolean): Promise<string> {
  if (fromStdin) return readStdinLine();
  const fromEnv = process.env.ECF_BACKUP_PASSPHRASE;
  if (fromEnv) return fromEnv;
  if (!stdinIsTty()) {
    throw new EngineError(
      'validation',
      'Backup.PassphraseRequired',
      'stdin is not a terminal, so the passphrase cannot be asked; pipe it in with --passphrase-stdin or set ECF_BACKUP_PASSPHRASE.',
    );
  }
  const first = await askPassword('Backup passphrase:');
  if (confirmTwice && (await askPassword('The same passphrase again:')) !== first) {
    throw new EngineError('validation', 'Backup.PassphraseMismatch', 'The two passphrases differ; nothing was written.');
  }
  return first;
}
