import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { ECF_COLUMNS, ecfRow } from '../ecf-render.js';
import { table } from '../render.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { listEcf } from '../../engine/ecf/index.js';
import { ENVIRONMENTS } from '../../engine/schema-types.js';

export default class List extends EcfCommand {
  static override description = "List a tenant's e-CF, newest first unless --sort/--order say otherwise, filtered and paged";
  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> list --type 31 --from 2026-03-01 --to 2026-03-31 --page-size 100',
    '<%= config.bin %> list --search 1318 --sort montoTotal --order asc --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    type: Flags.string({ description: 'Only this e-CF type', helpValue: 'N' }),
    status: Flags.string({ description: 'Only this status (signed, accepted, accepted_conditional, rejected, review, failed)' }),
    search: Flags.string({ description: 'Start of an e-NCF, buyer RNC, internal number or buyer name' }),
    from: Flags.string({ description: 'Issue date from, inclusive', helpValue: 'YYYY-MM-DD' }),
    to: Flags.string({ description: 'Issue date to, inclusive', helpValue: 'YYYY-MM-DD' }),
    env: Flags.string({ description: 'Only this environment', options: [...ENVIRONMENTS] }),
    'min-amount': Flags.string({ description: 'Total (montoTotal) at least', helpValue: 'AMOUNT' }),
    'max-amount': Flags.string({ description: 'Total (montoTotal) at most', helpValue: 'AMOUNT' }),
    sort: Flags.string({ description: 'Sort by (default issuedAt)', options: ['issuedAt', 'montoTotal'] }),
    order: Flags.string({ description: 'Sort order (default desc)', options: ['desc', 'asc'] }),
    page: Flags.string({ description: 'Page, from 1', helpValue: 'N' }),
    'page-size': Flags.string({ description: 'e-CF per page (default 20, at most 200)', helpValue: 'N' }),
  };

  async run() {
    const { flags } = await this.parse(List);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    // The engine takes the contract's parameter names and checks every value.
    const query = Object.fromEntries(
      Object.entries({
        Type: flags.type,
        Status: flags.status,
        Search: flags.search,
        From: flags.from,
        To: flags.to,
        Environment: flags.env,
        MinAmount: flags['min-amount'],
        MaxAmount: flags['max-amount'],
        Sort: flags.sort,
        Order: flags.order,
        Page: flags.page,
        PageSize: flags['page-size'],
      }).filter(([, v]) => v !== undefined),
    );
    const page = await listEcf(engine, tenant.id, query);
    this.log(table(page.items.map(ecfRow), ECF_COLUMNS));
    this.log(`page ${page.page} of ${Math.max(page.totalPages, 1)}, ${page.totalCount} e-CF`);
    return page;
  }
}
