import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant } from '../../tenant-flag.js';
import { verifyAudit } from '../../../engine/journal/index.js';

export default class AuditVerify extends EcfCommand {
  static override description =
    "Check each tenant's journal: recompute every link of the chain, check that no seq is missing, that the head row and every closing's locked head equal the recomputed hash, and each closing's signature with the certificate it carries; then check the journal against the store (every issued and received e-CF recorded once, with its documents' digest, and every recorded e-CF still there). Prints the first thing that does not hold per tenant. Read-only. Exits 1 if any tenant's journal does not verify.";
  static override examples = ['<%= config.bin %> audit verify', '<%= config.bin %> audit verify --tenant 131234567 --json'];
  static override flags = {
    tenant: Flags.string({ description: "Only this tenant's journal (id or RNC); all tenants when left out" }),
  };

  async run() {
    const { flags } = await this.parse(AuditVerify);
    const engine = await this.engine(flags);
    const tenant = flags.tenant === undefined ? undefined : await resolveTenant(engine, flags.tenant);
    const report = await verifyAudit(engine, {
      ...(tenant && { tenantId: tenant.id }),
      onTenant: (t) => {
        if (!this.jsonEnabled() && t.problem) {
          const p = t.problem;
          this.log(`BROKEN tenant ${t.rnc} (${t.tenantId})${p.seq !== null ? ` seq ${p.seq}` : ''}${p.kind ? ` ${p.kind}` : ''}${p.encf ? ` e-NCF ${p.encf}` : ''}: ${p.what}`);
        }
      },
    });
    this.log(
      table(
        report.tenants.map((t) => ({
          tenant: t.rnc,
          entries: t.entries,
          'closings signed': t.closings.signed,
          unsigned: t.closings.unsigned,
          'e-CF': t.ecf,
          received: t.received,
          result: t.problem ? 'BROKEN' : 'ok',
        })),
        ['tenant', 'entries', 'closings signed', 'unsigned', 'e-CF', 'received', 'result'],
      ),
    );
    const rate = report.seconds > 0 ? Math.round(report.entries / report.seconds) : report.entries;
    this.log(`${report.entries} entr${report.entries === 1 ? 'y' : 'ies'} checked in ${report.seconds.toFixed(1)} s (${rate}/s): ${report.broken ? `${report.broken} tenant(s) BROKEN` : 'every journal verifies'}`);
    if (report.broken > 0) process.exitCode = 1;
    return report;
  }
}
