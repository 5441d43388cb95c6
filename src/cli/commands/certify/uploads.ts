import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { writeConsumoUploads } from '../../../engine/certification/index.js';

export default class CertifyUploads extends EcfCommand {
  static override description =
    'Write the full consumo e-CF 32 (under DOP 250,000) of Paso 2 for the portal\'s "Facturas de consumo < 250Mil" box, named {RNC}{e-NCF}.xml: the exact signed bytes whose security code went into the accepted RFCE. Refused, naming them, while any RFCE is not accepted';
  static override examples = ['<%= config.bin %> certify uploads --out consumo'];
  static override flags = {
    tenant: tenantFlag,
    out: Flags.string({ description: 'Folder to write them in (created if missing)', default: 'consumo-uploads', helpValue: 'DIR' }),
  };

  async run() {
    const { flags } = await this.parse(CertifyUploads);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const result = await writeConsumoUploads(engine, tenant.id, flags.out);
    for (const f of result.files) this.log(`${result.dir}/${f}`);
    this.log(`Upload these ${result.files.length} files in the portal (Paso 2, "Facturas de consumo < 250Mil", ENVIAR).`);
    return result;
  }
}
