import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { progressBar } from '../../progress.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { loadCases, requireCertification } from '../../../engine/certification/index.js';
import { runCertificationSet, type RunEvent } from '../../../engine/certification/runs.js';

export default class CertifyRun extends EcfCommand {
  static override description =
    'Send the imported certification set to the authority (Paso 2: e-CF and RFCE in a valid order; Paso 3: commercial approvals), poll the verdicts, stop at the first rejection. Resumable: running it again after Ctrl-C or a crash sends nothing twice';
  static override examples = ['<%= config.bin %> certify run', '<%= config.bin %> certify run --paso 3 --json'];
  static override flags = {
    tenant: tenantFlag,
    paso: Flags.integer({ description: 'Which set: 2 (e-CF) or 3 (commercial approvals); default the first imported one not done', options: ['2', '3'] as never }),
  };

  async run() {
    const { flags } = await this.parse(CertifyRun);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const certification = await requireCertification(engine, tenant.id);
    let paso = flags.paso as 2 | 3 | undefined;
    if (paso === undefined) {
      const imported3 = (await loadCases(engine, tenant.id, 3)).length > 0;
      paso = certification.pasos[2].state === 'done' && imported3 ? 3 : 2;
    }
    const total = (await loadCases(engine, tenant.id, paso)).filter((c) => c.phase !== 'upload').length;
    const bar = progressBar(total, paso === 2 ? 'Paso 2' : 'Paso 3', !this.jsonEnabled());
    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const onEvent = (e: RunEvent) => {
      if (e.type === 'prepared') {
        bar.clear();
        if (!this.jsonEnabled()) this.log(`Built, signed and checked ${e.count} documents against their XSD.`);
      } else if (e.type === 'settling') {
        bar.clear();
        if (!this.jsonEnabled()) {
          const seconds = Math.ceil(e.waitMs / 1000);
          this.log(
            `${e.encfs.join(', ')} ${e.encfs.length === 1 ? 'was' : 'were'} sent without an answer (a run that stopped, or a lost connection). ` +
              `The authority may still be processing ${e.encfs.length === 1 ? 'it' : 'them'}: waiting ${seconds} s, until ${e.until}, then asking whether ${e.encfs.length === 1 ? 'it' : 'they'} arrived before sending anything again.`,
          );
        }
      } else if (e.type === 'verdict') {
        bar.clear();
        if (!this.jsonEnabled()) {
          const said = e.case.messages.map((m) => (m.code ? `${m.code} ${m.value}` : m.value)).join('; ');
          this.log(`${e.case.sheet} row ${e.case.row}  ${e.case.encf}  ${e.case.state}${said ? `: ${said}` : ''}`);
        }
        const c = e.counts;
        bar.update(paso === 2 ? c.ecf.accepted + c.rfce.accepted : c.approvals.accepted);
      }
    };
    try {
      const result = await runCertificationSet(engine, tenant.id, { paso, onEvent, signal: abort.signal });
      bar.finish();
      const c = result.counts;
      this.log(
        paso === 2
          ? `${c.ecf.accepted}/${c.ecf.total} Comprobantes Aceptados, ${c.rfce.accepted}/${c.rfce.total} Resúmenes de Consumo Aceptados`
          : `${c.approvals.accepted}/${c.approvals.total} Aprobaciones comerciales aceptadas`,
      );
      for (const r of result.rejected) {
        this.log(`Rejected: ${r.sheet} row ${r.row} (${r.caseId}, ${r.encf})`);
        for (const m of r.messages) this.log(`  ${m.code ? `${m.code}: ` : ''}${m.value}`);
      }
      this.log(result.note);
      if (result.outcome !== 'done') process.exitCode = result.outcome === 'stopped' ? 4 : 6;
      return result;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  }
}
