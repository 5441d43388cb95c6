import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { table } from '../render.js';
import { DATABASE_URL_FILE } from '../../engine/data-dir.js';
import { databaseUrlOf, openEngine } from '../../engine/engine.js';
import { EngineError } from '../../engine/errors.js';
import { isPostgresUrl } from '../../engine/store/index.js';
import { copyStore } from '../../engine/backup/index.js';

export default class MigrateStore extends EcfCommand {
  static override description =
    "Copy this appliance's store into another one: from the SQLite file into PostgreSQL, or from PostgreSQL back into the SQLite file of the data directory. The target must be empty; every row is compared afterwards and every signed e-CF hashed again. Stop `ecf serve` and the jobs first: what they write during the copy is not copied.";
  static override examples = [
    '<%= config.bin %> migrate-store --to postgres://ecf@db.office.lan/ecf',
    '<%= config.bin %> migrate-store --to postgres://ecf@db.office.lan/ecf --switch',
    'ECF_DATABASE_URL=postgres://ecf@db.office.lan/ecf <%= config.bin %> migrate-store --to sqlite --switch',
  ];
  static override flags = {
    to: Flags.string({ description: 'postgres://... (a database the role may create, or an empty one), or "sqlite" for the data directory\'s SQLite file', required: true }),
    switch: Flags.boolean({ description: "Once the copy is verified, point the data directory at the target (writes or removes its database-url file)" }),
  };

  async run() {
    const { flags } = await this.parse(MigrateStore);
    const dataDir = this.dataDir(flags);
    const sourceUrl = databaseUrlOf({ dataDir });
    const toSqlite = flags.to === 'sqlite';
    if (!toSqlite && !isPostgresUrl(flags.to)) {
      throw new EngineError('validation', 'Store.UnsupportedUrl', '--to takes a postgres:// or postgresql:// URL, or "sqlite" for the data directory\'s SQLite file.');
    }
    if (toSqlite ? !sourceUrl : sourceUrl === flags.to) {
      throw new EngineError('validation', 'Store.SameStore', `The data directory's store already is ${toSqlite ? 'its SQLite file' : 'that database'}; copy into another one.`);
    }
    const source = await this.engine(flags);
    const target = await openEngine({ dataDir, databaseUrl: toSqlite ? null : flags.to });
    try {
      let current = '';
      const report = await copyStore(source, target, {
        onProgress: (name, rows) => {
          if (name !== current && !this.jsonEnabled()) process.stderr.write(`${current ? '\n' : ''}${name}`);
          current = name;
          if (!this.jsonEnabled() && rows % 5000 === 0) process.stderr.write('.');
        },
      });
      if (current && !this.jsonEnabled()) process.stderr.write('\n');
      this.log(table(report.tables.map((t) => ({ table: t.table, rows: t.rows })), ['table', 'rows']));
      this.log(`copied ${report.from} -> ${report.to}; every table compared, ${report.documentsVerified} signed e-CF hashed again: all match; ${report.secretsCarried} encrypted-file secrets carried`);
      for (const name of report.missingSecrets) this.warn(`the secret store no longer holds ${name}; its row was copied without it`);
      const urlFile = join(dataDir, DATABASE_URL_FILE);
      if (flags.switch) {
        if (toSqlite) rmSync(urlFile, { force: true });
        else writeFileSync(urlFile, `${flags.to}\n`, { mode: 0o600 });
        this.log(`the data directory now uses ${toSqlite ? 'its SQLite file' : 'the PostgreSQL database'}${process.env.ECF_DATABASE_URL ? '; ECF_DATABASE_URL is set and still takes precedence: change it too' : ''}`);
      } else {
        this.log(
          toSqlite
            ? `to use it: unset ECF_DATABASE_URL${existsSync(urlFile) ? ` and remove ${urlFile}` : ''} (or run again with --switch)`
            : `to use it: set ECF_DATABASE_URL or write the URL to ${urlFile} (or run again with --switch)`,
        );
      }
      return { ...report, switched: flags.switch };
    } finally {
      await target.close();
    }
  }
}
