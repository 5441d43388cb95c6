import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { pingWebhook } from '../../../engine/webhooks/index.js';

export default class WebhookPing extends EcfCommand {
  static override description = 'Send a signed webhook.ping to the endpoint now (outside the retry queue) and show what happened';
  static override examples = ['<%= config.bin %> webhook ping 0b9f...', '<%= config.bin %> webhook ping 0b9f... --json'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(WebhookPing);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const result = await pingWebhook(engine, tenant.id, args.id);
    this.log(result.delivered ? `Delivered (HTTP ${result.statusCode}).` : `Not delivered: ${result.error}`);
    return result;
  }
}
