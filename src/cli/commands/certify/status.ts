import { writeFileSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { certificationReport, reportText } from '../../../engine/certification/index.js';

export default class CertifyStatus extends EcfCommand {
  static override description = 'The certification report: every Paso done or pending, what was sent, the verdicts, and your next action';
  static override examples = ['<%= config.bin %> certify status', '<%= config.bin %> certify status --out certification.txt', '<%= config.bin %> certify status --json'];
  static override flags = {
    tenant: tenantFlag,
    out: Flags.string({ description: 'Also write the report to this file (JSON when it ends in .json, text otherwise)', helpValue: 'FILE' }),
  };

  async run() {
    const { flags } = await this.parse(CertifyStatus);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const report = await certificationReport(engine, tenant.id);
    const text = reportText(report);
    if (flags.out) writeFileSync(flags.out, flags.out.endsWith('.json') ? `${JSON.stringify(report, null, 2)}\n` : `${text}\n`);
    this.log(text);
    return report;
  }
}
