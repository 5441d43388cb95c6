import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { findTenant, setEmitterProfile } from '../../../engine/tenants/index.js';

export default class TenantProfile extends EcfCommand {
  static override description =
    "Create a tenant's emitter profile (--address needed) or change the given fields of the existing one";
  static override examples = [
    '<%= config.bin %> tenant profile 131234567 --address "Calle El Conde 12" --municipality 010100 --province 010000 --phone 809-555-1234 --phone 829-555-0000',
    '<%= config.bin %> tenant profile 131234567 --email caja@ferreteria.do',
  ];
  static override args = {
    tenant: Args.string({ description: 'Tenant id, or RNC when it names a single tenant', required: true }),
  };
  static override flags = {
    address: Flags.string({ description: 'Address (dirección del emisor)' }),
    municipality: Flags.string({ description: "Six-digit municipality code of the authority's list, e.g. 010100" }),
    province: Flags.string({ description: "Six-digit province code of the authority's list, e.g. 010000" }),
    email: Flags.string({ description: 'E-mail of the emitter' }),
    activity: Flags.string({ description: 'Economic activity' }),
    phone: Flags.string({
      description: 'Phone number written 809-555-1234 (repeat for several; replaces the list)',
      multiple: true,
    }),
  };

  async run() {
    const { args, flags } = await this.parse(TenantProfile);
    const engine = await this.engine(flags);
    const { id } = await findTenant(engine, args.tenant);
    const profile = await setEmitterProfile(engine, id, {
      ...(flags.address !== undefined && { address: flags.address }),
      ...(flags.municipality !== undefined && { municipality: flags.municipality }),
      ...(flags.province !== undefined && { province: flags.province }),
      ...(flags.email !== undefined && { email: flags.email }),
      ...(flags.activity !== undefined && { economicActivity: flags.activity }),
      ...(flags.phone !== undefined && { phones: flags.phone }),
    });
    this.log(record(profile));
    return profile;
  }
}
