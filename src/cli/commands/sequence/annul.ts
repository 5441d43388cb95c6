import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { askConfirm, stdinIsTty } from '../../prompts.js';
import { annulmentText } from '../../sequence-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { EngineError } from '../../../engine/errors.js';
import { annulSequences } from '../../../engine/sequences/annulling.js';
import { ENVIRONMENTS } from '../../../engine/schema-types.js';

export default class SequenceAnnul extends EcfCommand {
  static override description =
    'Annul never-used e-NCF of an authorized range (ANECF). The numbers are discarded at once and for good, then the signed ANECF goes to the tax authority. Asks first unless --yes; exits 1 when the authority did not confirm (see `ecf sequence annul-retry`).';
  static override examples = [
    '<%= config.bin %> sequence annul --env production --type 31 --from 4001 --to 5000 --reason "Cierre de sucursal"',
    '<%= config.bin %> sequence annul --tenant 131234567 --env test --type 32 --from 100 --to 200 --reason "Prueba" --yes --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ description: 'Environment of the range', options: [...ENVIRONMENTS], required: true }),
    type: Flags.string({ description: 'e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46, 47)', helpValue: 'N', required: true }),
    from: Flags.string({ description: 'First number to annul', helpValue: 'N', required: true }),
    to: Flags.string({ description: 'Last number to annul', helpValue: 'N', required: true }),
    reason: Flags.string({ description: 'Why; kept with the record', required: true }),
    yes: Flags.boolean({ char: 'y', description: 'Annul without asking (required when stdin is not a terminal)' }),
  };

  async run() {
    const { flags } = await this.parse(SequenceAnnul);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    if (!flags.yes) {
      if (!stdinIsTty()) {
        throw new EngineError(
          'validation',
          'Annulment.ConfirmationRequired',
          'Annulling is permanent and stdin is not a terminal to confirm it; add --yes.',
        );
      }
      const sure = await askConfirm(
        `Annul numbers ${flags.from} to ${flags.to} of type ${flags.type} of ${tenant.legalName} in ${flags.env}? They can never be used again.`,
      );
      if (!sure) {
        this.logToStderr('Nothing annulled.');
        this.exit(1);
      }
    }
    const annulment = await annulSequences(engine, tenant.id, {
      environment: flags.env,
      reason: flags.reason,
      lines: [{ type: flags.type, series: 'E', rangeFrom: flags.from, rangeTo: flags.to }],
    });
    this.log(annulmentText(annulment));
    if (annulment.status !== 'voided') process.exitCode = 1;
    return annulment;
  }
}
