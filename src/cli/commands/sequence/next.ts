import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { RANGE_COLUMNS, rangeRow } from '../../sequence-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { nextNumber, setNextNumber, type NextNumberView } from '../../../engine/sequences/index.js';
import { ENVIRONMENTS } from '../../../engine/schema-types.js';

export default class SequenceNext extends EcfCommand {
  static override description =
    'Show, or with --set move, the e-NCF number a type hands out next in an environment. Moving forward skips numbers for good (use it when the tax authority already knows them: after a restore, or for the certification\'s Paso 4); lower ranges of the type are closed. Moving back needs --backwards and is refused at or below a number this tenant used.';
  static override examples = [
    '<%= config.bin %> sequence next --env production --type 31',
    '<%= config.bin %> sequence next --env cert --type 31 --set 1056',
    '<%= config.bin %> sequence next --tenant 131234567 --env test --type 32 --set 40 --backwards --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ description: 'Environment of the ranges', options: [...ENVIRONMENTS], required: true }),
    type: Flags.string({ description: 'e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46, 47)', helpValue: 'N', required: true }),
    set: Flags.string({ description: 'The number to hand out next', helpValue: 'N' }),
    backwards: Flags.boolean({ description: 'Allow moving below the present next number (none of the numbers between may have been used)', dependsOn: ['set'] }),
  };

  async run() {
    const { flags } = await this.parse(SequenceNext);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    if (flags.set === undefined) {
      const view = await nextNumber(engine, { tenantId: tenant.id, environment: flags.env, type: flags.type });
      this.log(`Type ${view.type} in ${view.environment}: ${view.nextEncf === null ? 'no range has numbers left' : `${view.nextEncf} is handed out next`}.`);
      this.show(view);
      return view;
    }
    const moved = await setNextNumber(engine, {
      tenantId: tenant.id,
      environment: flags.env,
      type: flags.type,
      next: flags.set,
      ...(flags.backwards && { backwards: true }),
    });
    const was = moved.previousEncf === null ? 'no range had numbers left' : `it was ${moved.previousEncf}`;
    this.log(`Type ${moved.type} in ${moved.environment}: ${moved.nextEncf ?? 'nothing'} is handed out next (${was}).`);
    if (moved.releasedAfterRestore) this.log('The range was held after a restore; it issues again from there.');
    this.show(moved);
    return moved;
  }

  private show(view: NextNumberView): void {
    if (view.ranges.length) this.log(table(view.ranges.map(rangeRow), RANGE_COLUMNS));
  }
}
