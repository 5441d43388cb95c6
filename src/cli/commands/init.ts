import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { record } from '../render.js';
import { DATABASE_FILE, SECRET_KEY_FILE } from '../../engine/data-dir.js';
import { ensureSecretStoreKey } from '../../engine/engine.js';
import { migrationStatus } from '../../engine/store/migrate.js';

export default class Init extends EcfCommand {
  static override description =
    'Prepare a data directory: create it, create or migrate the database, create the secret-store key. Safe to run again.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --data-dir /var/lib/ecf --yes'];
  static override flags = {
    // Scripts and installers pass it so they never wait for an answer.
    yes: Flags.boolean({ description: 'Ask nothing: take the flags and the defaults' }),
  };

  async run() {
    const { flags } = await this.parse(Init);
    const dataDir = this.dataDir(flags);
    const existed = existsSync(join(dataDir, DATABASE_FILE));
    const engine = await this.engine(flags);
    const secretKeyCreated = ensureSecretStoreKey(dataDir);
    const result = {
      dataDir,
      database: join(dataDir, DATABASE_FILE),
      databaseCreated: !existed,
      secretStoreKey: join(dataDir, SECRET_KEY_FILE),
      secretStoreKeyCreated: secretKeyCreated,
      migrations: await migrationStatus(engine.db),
    };
    this.log(record({ ...result, migrations: result.migrations.map((m) => m.name).join(', ') }));
    return result;
  }
}
