import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { heldText } from '../restore-render.js';

export default class Restore extends EcfCommand {
  static override description =
    'Restore a backup made by `ecf backup` (either format: sealed whole, or the older one with only the secrets sealed) into a data directory whose store is empty (--data-dir, ECF_DATA_DIR or the default): its SQLite file, or the PostgreSQL database it points at (ECF_DATABASE_URL or its database-url file; created if absent, and written to database-url when only the variable named it). A backup of either store restores onto either. The secrets go to this machine’s secret store (keychain or encrypted files, per secrets.store).';
  static override examples = [
    '<%= config.bin %> restore ecf-2026-11-22.ecfbak --data-dir /var/lib/ecf',
    "printf '%s' \"$BACKUP_PASSPHRASE\" | <%= config.bin %> restore nightly.ecfbak --passphrase-stdin --json",
    'ECF_DATABASE_URL=postgres://ecf@db.office.lan/ecf_restored <%= config.bin %> restore nightly.ecfbak --data-dir /var/lib/ecf',
  ];
  static override args = {
    file: Args.string({ description: 'The backup file', required: true, ignoreStdin: true }),
  };
  static override flags = {
    'passphrase-stdin': Flags.boolean({ description: 'Read the passphrase from stdin (else ECF_BACKUP_PASSPHRASE, else asked)' }),
  };

  async run() {
    const { args, flags } = await this.parse(Restore);
    // Loaded only for this command: the CLI's start stays light.
    const [{ backupPassphrase }, { restoreDataDir }] = await Promise.all([import('../passphrase.js'), import('../../engine/backup/index.js')]);
    const passphrase = await backupPassphrase(flags['passphrase-stdin'], false);
    const result = await restoreDataDir(args.file, this.dataDir(flags), passphrase);
    this.log(
      `restored into ${result.dataDir}${result.store === 'postgres' ? ` (its PostgreSQL database; every table compared, ${result.documentsVerified} signed e-CF hashed again)` : ''}: backup of ${result.createdAt}, ${(result.databaseBytes / 2 ** 20).toFixed(1)} MiB database, ` +
        `${result.secrets} secrets now in the ${result.secretStore} store${result.migrated.length ? `; migrated ${result.migrated.join(', ')}` : ''}`,
    );
    // Said, since the file now decides which store every later command in this directory opens.
    if (result.databaseUrlRecorded) this.log(`${result.dataDir}/database-url now names that PostgreSQL database: later commands here open it without ECF_DATABASE_URL`);
    this.log(heldText(result.rangesHeld));
    return result;
  }
}
