import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { certificationReport, pasoOf, recordPaso, requireCertification, type PasoNumber } from '../../../engine/certification/index.js';
import { invalidField } from '../../../engine/errors.js';

export default class CertifyMark extends EcfCommand {
  static override description =
    'Record a Paso you did in the portal (or the authority did: 6, 8, 10, 12, 14) as done, or set one back to pending: the appliance cannot see the portal';
  static override examples = [
    '<%= config.bin %> certify mark 6 --note "Representación Impresa Aprobada"',
    '<%= config.bin %> certify mark 12',
    '<%= config.bin %> certify mark 5 --pending',
  ];
  static override args = { paso: Args.integer({ description: 'The Paso, 1 to 14', required: true }) };
  static override flags = {
    tenant: tenantFlag,
    pending: Flags.boolean({ description: 'Set it back to pending instead' }),
    note: Flags.string({ description: 'What the portal said, for the report' }),
  };

  async run() {
    const { args, flags } = await this.parse(CertifyMark);
    const paso = pasoOf(args.paso);
    if (!paso) throw invalidField('paso', 'Certification.PasoUnknown', `There is no Paso ${args.paso}: the portal has Pasos 1 to 14.`);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    await requireCertification(engine, tenant.id);
    const note = flags.note ?? (flags.pending ? 'Set back to pending by hand.' : 'Marked done by hand.');
    await recordPaso(engine, tenant.id, paso.paso as PasoNumber, { state: flags.pending ? 'pending' : 'done', note });
    const report = await certificationReport(engine, tenant.id);
    this.log(`Paso ${paso.paso} (${paso.title}): ${flags.pending ? 'pending' : 'done'}.`);
    this.log(`Next: ${report.next}`);
    return report.pasos.find((p) => p.paso === paso.paso);
  }
}
