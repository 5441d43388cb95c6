import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { table } from '../render.js';
import { openEngine } from '../../engine/engine.js';
import { migrateDown, migrateTo, migrateToLatest, migrationStatus, type MigrationStep } from '../../engine/store/index.js';

export default class Migrate extends EcfCommand {
  static override description = 'Apply database migrations (all pending by default), step down, or show their status';
  static override examples = [
    '<%= config.bin %> migrate',
    '<%= config.bin %> migrate --status',
    '<%= config.bin %> migrate --down',
    '<%= config.bin %> migrate --to none',
  ];
  static override flags = {
    status: Flags.boolean({ description: 'Only list migrations and when each was applied', exclusive: ['down', 'to'] }),
    down: Flags.boolean({ description: 'Undo the last applied migration', exclusive: ['to'] }),
    to: Flags.string({ description: 'Move to this migration (up or down); "none" undoes all' }),
  };

  async run() {
    const { flags } = await this.parse(Migrate);
    const engine = await openEngine({ dataDir: this.dataDir(flags), migrate: false });
    try {
      let steps: MigrationStep[] = [];
      if (flags.down) steps = await migrateDown(engine.db);
      else if (flags.to) steps = await migrateTo(engine.db, flags.to);
      else if (!flags.status) steps = await migrateToLatest(engine.db);
      const status = await migrationStatus(engine.db);
      for (const s of steps) this.log(`${s.direction === 'Up' ? 'applied' : 'reverted'} ${s.name}`);
      this.log(table(status.map((m) => ({ migration: m.name, appliedAt: m.executedAt })), ['migration', 'appliedAt']));
      return { steps, status };
    } finally {
      await engine.close();
    }
  }
}
