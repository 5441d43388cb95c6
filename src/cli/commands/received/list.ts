import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { APPROVAL_STATES, listReceivedEcf } from '../../../engine/reception/index.js';

export default class ReceivedList extends EcfCommand {
  static override description = 'The inbox: e-CF other issuers sent to the tenant, newest first, filtered and paged';
  static override examples = ['<%= config.bin %> received list', '<%= config.bin %> received list --approval pending --json'];
  static override flags = {
    tenant: tenantFlag,
    status: Flags.string({ description: 'received or not_received', options: ['received', 'not_received'] }),
    approval: Flags.string({ description: 'Where the commercial decision stands', options: [...APPROVAL_STATES] }),
    issuer: Flags.string({ description: "Only this issuer's RNC", helpValue: 'RNC' }),
    encf: Flags.string({ description: 'Start of the e-NCF' }),
    type: Flags.string({ description: 'Only this e-CF type', helpValue: 'N' }),
    from: Flags.string({ description: 'Received from, inclusive', helpValue: 'YYYY-MM-DD' }),
    to: Flags.string({ description: 'Received to, inclusive', helpValue: 'YYYY-MM-DD' }),
    page: Flags.string({ description: 'Page, from 1', helpValue: 'N' }),
    'page-size': Flags.string({ description: 'Per page (default 20, at most 200)', helpValue: 'N' }),
  };

  async run() {
    const { flags } = await this.parse(ReceivedList);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const query = Object.fromEntries(
      Object.entries({
        Status: flags.status,
        Approval: flags.approval,
        IssuerRnc: flags.issuer,
        Encf: flags.encf,
        Type: flags.type,
        From: flags.from,
        To: flags.to,
        Page: flags.page,
        PageSize: flags['page-size'],
      }).filter(([, v]) => v !== undefined),
    );
    const page = await listReceivedEcf(engine, tenant.id, query);
    const rows = page.items.map((i) => ({
      id: i.id,
      encf: i.encf,
      issuer: i.issuerRnc,
      status: i.status,
      reason: i.reception.reasonCode,
      approval: i.approvalState,
      total: i.montoTotal,
      received: i.receivedAt,
    }));
    this.log(table(rows, ['id', 'encf', 'issuer', 'status', 'reason', 'approval', 'total', 'received']));
    this.log(`page ${page.page} of ${Math.max(page.totalPages, 1)}, ${page.totalCount} received e-CF`);
    return page;
  }
}
