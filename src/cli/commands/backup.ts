import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { backupPassphrase } from '../passphrase.js';
import { backupDataDir } from '../../engine/backup/backup.js';

export default class Backup extends EcfCommand {
  static override description =
    'Write a backup of the data directory to FILE while the appliance keeps running: a consistent copy of the database (SQLite online backup) and the certificates and secrets from the secret store, sealed with a passphrase. Restore it with `ecf restore`, here or on another machine.';
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
    const engine = await this.engine(flags);
    const passphrase = await backupPassphrase(flags['passphrase-stdin'], true);
    const result = await backupDataDir(engine, args.file, passphrase);
    this.log(`backup written: ${result.file} (${(result.databaseBytes / 2 ** 20).toFixed(1)} MiB database, ${result.secrets} secrets)`);
    for (const m of result.missingSecrets) this.warn(`the secret store no longer holds ${m}; that row was backed up without it`);
    return result;
  }
}
