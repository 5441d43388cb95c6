import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { DELIVERY_COLUMNS, deliveryRow } from '../../webhook-render.js';
import { listDeliveries } from '../../../engine/webhooks/index.js';

export default class WebhookDeliveries extends EcfCommand {
  static override description = "An endpoint's delivery log (kept 30 days), newest first";
  static override examples = ['<%= config.bin %> webhook deliveries 0b9f...', '<%= config.bin %> webhook deliveries 0b9f... --page 2 --page-size 50 --json'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id', required: true, ignoreStdin: true }) };
  static override flags = {
    tenant: tenantFlag,
    page: Flags.integer({ description: 'Page, from 1', default: 1, min: 1 }),
    'page-size': Flags.integer({ description: 'Deliveries per page (at most 200)', default: 20, min: 1, max: 200 }),
  };

  async run() {
    const { args, flags } = await this.parse(WebhookDeliveries);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const paged = await listDeliveries(engine, tenant.id, args.id, { page: flags.page, pageSize: flags['page-size'] });
    this.log(table(paged.items.map(deliveryRow), DELIVERY_COLUMNS));
    if (paged.totalPages > 1) this.log(`page ${paged.page} of ${paged.totalPages} (${paged.totalCount} deliveries)`);
    return paged;
  }
}
