import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { ENDPOINT_COLUMNS, endpointRow } from '../../webhook-render.js';
import { listWebhooks } from '../../../engine/webhooks/index.js';

export default class WebhookList extends EcfCommand {
  static override description = "List a tenant's webhook endpoints with their events, state and failures in a row (never their secrets)";
  static override examples = ['<%= config.bin %> webhook list', '<%= config.bin %> webhook list --tenant 131234567 --json'];
  static override flags = { tenant: tenantFlag };

  async run() {
    const { flags } = await this.parse(WebhookList);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const endpoints = await listWebhooks(engine, tenant.id);
    this.log(table(endpoints.map(endpointRow), ENDPOINT_COLUMNS));
    return endpoints;
  }
}
