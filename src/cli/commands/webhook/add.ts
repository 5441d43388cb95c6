import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { createWebhook } from '../../../engine/webhooks/index.js';

export default class WebhookAdd extends EcfCommand {
  static override description =
    'Subscribe a webhook endpoint to events (exact types, category wildcards such as ecf.*, or *). Prints the signing secret once; it cannot be shown again.';
  static override examples = [
    "<%= config.bin %> webhook add https://erp.example.com/hooks/ecf --event 'ecf.*'",
    '<%= config.bin %> webhook add https://erp.example.com/hooks/ecf --event ecf.accepted --event ecf.rejected --description ERP --json',
  ];
  static override args = {
    url: Args.string({ description: 'Absolute https URL of the receiver (http only in development mode)', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    event: Flags.string({ description: 'An event to subscribe to; repeat for more (at most 20)', multiple: true, required: true, helpValue: 'TYPE' }),
    description: Flags.string({ description: 'A note for people' }),
  };

  async run() {
    const { args, flags } = await this.parse(WebhookAdd);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const created = await createWebhook(engine, tenant.id, {
      url: args.url,
      events: flags.event,
      ...(flags.description !== undefined && { description: flags.description }),
    });
    this.log(record({ ...created.endpoint }));
    this.log(`\nSigning secret (shown only now; keep it in the receiver):\n${created.secret}`);
    return created;
  }
}
