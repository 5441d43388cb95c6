import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { deleteWebhook } from '../../../engine/webhooks/index.js';

export default class WebhookRemove extends EcfCommand {
  static override description = 'Remove a webhook endpoint and its delivery log; nothing more is sent to it';
  static override examples = ['<%= config.bin %> webhook remove 0b9f...', '<%= config.bin %> webhook remove 0b9f... --tenant 131234567 --json'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(WebhookRemove);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    await deleteWebhook(engine, tenant.id, args.id);
    this.log(`Webhook ${args.id} removed.`);
    return { id: args.id, removed: true };
  }
}
