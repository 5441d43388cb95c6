import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { getDelivery, retryDelivery } from '../../../engine/webhooks/index.js';

export default class WebhookRetry extends EcfCommand {
  static override description = 'Send a dead delivery again: back to pending, due now, attempts reset (only dead deliveries)';
  static override examples = ['<%= config.bin %> webhook retry 0b9f... 6c1d...'];
  static override args = {
    id: Args.string({ description: 'Webhook endpoint id', required: true, ignoreStdin: true }),
    delivery: Args.string({ description: 'Delivery id (from `ecf webhook deliveries`)', required: true, ignoreStdin: true }),
  };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(WebhookRetry);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    await retryDelivery(engine, tenant.id, args.id, args.delivery);
    const delivery = await getDelivery(engine, tenant.id, args.id, args.delivery);
    this.log(`Delivery ${delivery.id} (${delivery.eventType}) is pending again; the running jobs send it.`);
    return delivery;
  }
}
