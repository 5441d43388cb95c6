import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant } from '../../tenant-flag.js';
import { verifyStore } from '../../../engine/store/document-upkeep.js';

export default class StoreVerify extends EcfCommand {
  static override description =
    'Read every stored document (issued e-CF and RFCE, annulments, received e-CF and their answers, certification cases) and check it against the SHA-256 kept when it was stored; print each damaged one with its table, id and e-NCF. Read-only. Exits 1 if any document is damaged.';
  static override examples = ['<%= config.bin %> store verify', '<%= config.bin %> store verify --signatures --tenant 131234567'];
  static override flags = {
    signatures: Flags.boolean({ description: 'Also check each signed document\'s XML signature (slower: a few milliseconds a document)', default: false }),
    tenant: Flags.string({ description: 'Only this tenant\'s documents (id or RNC); all tenants when left out' }),
  };

  async run() {
    const { flags } = await this.parse(StoreVerify);
    const engine = await this.engine(flags);
    const tenant = flags.tenant === undefined ? undefined : await resolveTenant(engine, flags.tenant);
    const report = await verifyStore(engine, {
      signatures: flags.signatures,
      ...(tenant && { tenantId: tenant.id }),
      onDamaged: (d) => {
        if (!this.jsonEnabled()) this.log(`DAMAGED ${d.document.table}${d.document.column ? `.${d.document.column}` : ''} ${d.document.id}${d.document.encf ? ` e-NCF ${d.document.encf}` : ''}: ${d.reason}`);
      },
    });
    this.log(table(report.tables.map((t) => ({ table: t.table, documents: t.documents, 'without digest': t.withoutDigest, damaged: t.damaged })), ['table', 'documents', 'without digest', 'damaged']));
    const rate = report.seconds > 0 ? Math.round(report.documents / report.seconds) : report.documents;
    this.log(
      `${report.documents} document(s) read in ${report.seconds.toFixed(1)} s (${rate}/s)${flags.signatures ? `, ${report.signaturesChecked} signature(s) checked` : ''}: ` +
        (report.damaged.length ? `${report.damaged.length} DAMAGED (restore them from a backup, docs/operating.md)` : 'none damaged'),
    );
    if (report.damaged.length > 0) process.exitCode = 1;
    return { ...report, tenantId: tenant?.id ?? null };
  }
}
