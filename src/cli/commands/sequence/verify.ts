import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { RESTORE_CHECK_LOOKAHEAD, verifyRangesAfterRestore, type RangeCheck } from '../../../engine/sequences/held-ranges.js';
import { ENVIRONMENTS } from '../../../engine/schema-types.js';

export default class SequenceVerify extends EcfCommand {
  static override description =
    'After `ecf restore`: ask the tax authority, e-NCF by e-NCF from each held range’s restored next number on, which numbers it already knows (consultatrackids), move the range past them and let it issue again. Exits 1 while a range stays held (the authority could not be asked).';
  static override examples = [
    '<%= config.bin %> sequence verify --tenant 131234567 --env production',
    '<%= config.bin %> sequence verify --tenant 131234567 --env test --lookahead 200 --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ description: 'Only the ranges of this environment', options: [...ENVIRONMENTS] }),
    lookahead: Flags.integer({
      description: `Unknown numbers in a row after which the rest of a range is taken as unused (default ${RESTORE_CHECK_LOOKAHEAD}); raise it if the lost store had a long run of e-CF not yet sent`,
      helpValue: 'N',
    }),
  };

  async run() {
    const { flags } = await this.parse(SequenceVerify);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const checks = await verifyRangesAfterRestore(engine, tenant.id, {
      ...(flags.env && { environment: flags.env as (typeof ENVIRONMENTS)[number] }),
      ...(flags.lookahead !== undefined && { lookahead: flags.lookahead }),
    });
    if (!checks.length) this.log(`No e-NCF range of ${tenant.legalName}${flags.env ? ` in ${flags.env}` : ''} is held after a restore.`);
    for (const c of checks) this.log(checkText(c));
    if (checks.some((c) => c.outcome === 'unchecked')) process.exitCode = 1;
    return checks;
  }
}

function checkText(c: RangeCheck): string {
  const range = `type ${c.type} ${c.rangeFrom}–${c.rangeTo} (${c.environment})`;
  if (c.outcome === 'unchecked') return `${range}: still held at ${c.restoredNext}. ${c.error}`;
  if (c.outcome === 'settled') return `${range}: released by someone else during the check; next number ${c.next}`;
  const moved = c.next === c.restoredNext ? `next number ${c.next} is unused` : `moved from ${c.restoredNext} to ${c.next}: the authority knows ${c.known} number(s) from ${c.restoredNext} on`;
  const gaps = c.unknownSkipped.length
    ? `; stepped over ${c.unknownSkipped.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`)).join(', ')}, which the authority does not know: annul those never used (\`ecf sequence annul\`)`
    : '';
  return `${range}: ${moved}${gaps}; issuing again`;
}
