import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { createOrganization, PLANS } from '../../../engine/tenants/index.js';

const planSummary = Object.entries(PLANS)
  .map(([name, l]) => `${name} (${l.maxTenants} tenants, ${l.monthlyEcfQuota} e-CF/month, ${l.maxMembers} members)`)
  .join('; ');

export default class OrgCreate extends EcfCommand {
  static override description = `Create an organization on a plan, with its owner as the first member.\nPlans: ${planSummary}. Each limit can be overridden.`;
  static override examples = [
    '<%= config.bin %> org create --name "Contadores Unidos" --plan office --owner-name "Ana Pérez" --owner-email ana@contadores.do',
    '<%= config.bin %> org create --name "Ferretería Ñoño" --plan solo --max-tenants 2 --owner-name "Juan Ñoño"',
  ];
  static override flags = {
    name: Flags.string({ description: 'Organization name', required: true }),
    plan: Flags.string({ description: 'Plan', required: true, options: Object.keys(PLANS) }),
    'max-tenants': Flags.integer({ description: "Tenants the organization may hold (overrides the plan's)" }),
    'monthly-quota': Flags.integer({ description: "e-CF included per month (overrides the plan's)" }),
    'max-members': Flags.integer({ description: "Members the organization may have (overrides the plan's)" }),
    'owner-name': Flags.string({ description: "Owner's name", required: true }),
    'owner-email': Flags.string({ description: "Owner's e-mail" }),
  };

  async run() {
    const { flags } = await this.parse(OrgCreate);
    const engine = await this.engine(flags);
    const limits = {
      ...(flags['max-tenants'] !== undefined && { maxTenants: flags['max-tenants'] }),
      ...(flags['monthly-quota'] !== undefined && { monthlyEcfQuota: flags['monthly-quota'] }),
      ...(flags['max-members'] !== undefined && { maxMembers: flags['max-members'] }),
    };
    const created = await createOrganization(engine, {
      name: flags.name,
      plan: flags.plan,
      ...(Object.keys(limits).length > 0 && { limits }),
      owner: {
        name: flags['owner-name'],
        ...(flags['owner-email'] !== undefined && { email: flags['owner-email'] }),
      },
    });
    const { limits: l, ...organization } = created.organization;
    this.log(record({ ...organization, ...l }));
    this.log('');
    this.log('Owner:');
    this.log(record(created.owner));
    return created;
  }
}
