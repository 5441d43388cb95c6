import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';

export default class Backup extends EcfCommand {
  static override description =
    'Write a backup of the data directory\'s store to FILE while the appliance keeps running: a consistent copy of the database (SQLite online backup; on PostgreSQL every table copied from one snapshot into the same SQLite format) and the certificates and secrets from the secret store, the whole file sealed with a passphrase (AES-256-GCM, scrypt). Restore it with `ecf restore`, here or on another machine, onto SQLite or PostgreSQL.';
  static override examples = [
    '<%= config.bin %> backup /mnt/usb/ecf-2026-11-22.ecfbak',
    "printf '%s' \"$BACKUP_PASSPHRASE\" | <%= config.bin %> backup nightly.ecfbak --passphrase-stdin --json",
  ];
  static override args = {
    file: Args.string({ description: 'The backup file to create (never overwritten)', required: true, ignoreStdin: true }),
  };
  static override flags = {
    'passphrase-stdin': Flags.boolean({ description: 'Read the passphrase from stdin (else ECF_BACKUP_PASSPHRASE, else asked)' }),
  };

  async run() {
    const { args, flags } = await this.parse(Backup);
    // Loaded only for this command: the CLI's start stays light.
    const [{ backupPassphrase }, { backupDataDir }] = await Promise.all([import('../passphrase.js'), import('../../engine/backup/index.js')]);
    const engine = await this.engine(flags);
    const passphrase = await backupPassphrase(flags['passphrase-stdin'], true);
    const result = await backupDataDir(engine, args.file, passphrase);
    this.log(`backup written: ${result.file} (${result.store === 'postgres' ? 'PostgreSQL store, ' : ''}${(result.databaseBytes / 2 ** 20).toFixed(1)} MiB database, ${result.secrets} secrets)`);
    for (const m of result.missingSecrets) this.warn(`the secret store no longer holds ${m}; that row was backed up without it`);
    return result;
  }
}
