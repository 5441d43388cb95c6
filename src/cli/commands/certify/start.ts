import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { certificationReport, paso4Needs, PASOS, startCertification } from '../../../engine/certification/index.js';

export default class CertifyStart extends EcfCommand {
  static override description =
    "Start the tenant's certification as an electronic issuer (the authority's certification environment, cert): shows the 14 Pasos, what the appliance does and what you do in the portal";
  static override examples = ['<%= config.bin %> certify start', '<%= config.bin %> certify start --tenant 131000001 --json'];
  static override flags = { tenant: tenantFlag };

  async run() {
    const { flags } = await this.parse(CertifyStart);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const { created } = await startCertification(engine, tenant.id);
    const report = await certificationReport(engine, tenant.id);
    this.log(created ? `Certification started for RNC ${tenant.rnc}.` : `Certification of RNC ${tenant.rnc} already started on ${report.startedAt}; nothing done is lost.`);
    this.log('');
    for (const p of PASOS) {
      const state = report.pasos.find((r) => r.paso === p.paso)!.state;
      this.log(`${state === 'done' ? '[x]' : '[ ]'} Paso ${p.paso}: ${p.title}`);
      if (p.appliance) this.log(`      appliance: ${p.appliance}${p.command ? ` (${p.command})` : ''}`);
      if (p.person) this.log(`      you, in the portal: ${p.person}`);
    }
    if (tenant.defaultEnvironment !== 'cert') {
      this.log(
        '',
        `Note: the tenant's default environment is ${tenant.defaultEnvironment}. The receiver files what the authority sends in Pasos 9 and 11 under it, ` +
          `so set it to cert for the certification: ecf tenant update ${tenant.rnc} --env cert`,
      );
    }
    // Told now, not at Paso 4: each takes a step outside the certification commands.
    const needs = await paso4Needs(engine, tenant.id);
    if (needs.length) {
      this.log('', 'Before Paso 4 (the simulation issues through the normal path):');
      for (const n of needs) this.log(`  - ${n.message}`, `    run: ${n.fix}`);
    }
    this.log('', `Next: ${report.next}`);
    return { created, ...report, paso4Needs: needs };
  }
}
