import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { certificationArrivals, recordArrivals } from '../../../engine/certification/receiver.js';

export default class CertifyArrivals extends EcfCommand {
  static override description =
    'Pasos 9 and 11: what the tax authority sent to the receiver in the certification environment (e-CF and commercial approvals) and what it was answered; records both Pasos';
  static override examples = ['<%= config.bin %> certify arrivals', '<%= config.bin %> certify arrivals --since 2026-03-10T14:00:00Z --json'];
  static override flags = {
    tenant: tenantFlag,
    since: Flags.string({ description: 'Only what arrived from this instant or date on (default: when the certification started)', helpValue: 'INSTANT' }),
    follow: Flags.boolean({ description: 'Keep watching: print each e-CF and approval as it arrives (while `ecf serve` answers them), until Ctrl-C' }),
  };

  async run() {
    const { flags } = await this.parse(CertifyArrivals);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const arrivals = await certificationArrivals(engine, tenant.id, flags.since === undefined ? {} : { since: flags.since });
    await recordArrivals(engine, tenant.id, arrivals);
    const { counts } = arrivals;
    this.log(`Since ${arrivals.since}, in the certification environment (cert):`);
    this.log(`Paso 9, e-CF received: ${counts.ecf} (${counts.received} answered received, ${counts.notReceived} not received)`);
    for (const e of arrivals.ecf) {
      this.log(`  ${e.receivedAt}  ${e.encf}  from ${e.issuerRnc}${e.issuerName ? ` ${e.issuerName}` : ''}  → ${e.answer === 'received' ? 'ARECF Estado 0 (recibido)' : `ARECF Estado 1, motivo ${e.motivo}: ${e.reason ?? ''}`}`);
    }
    this.log(`Paso 11, commercial approvals received: ${counts.approvals}`);
    for (const a of arrivals.approvals) {
      this.log(`  ${a.receivedAt}  ${a.encf}  from buyer ${a.buyerRnc}  ${a.decision}${a.rejectionReason ? ` (${a.rejectionReason})` : ''}  → ${a.answer}`);
    }
    if (flags.follow && !this.jsonEnabled()) return this.follow(engine, tenant.id, flags.since, arrivals);
    if (counts.ecf === 0) this.log('Nothing yet for Paso 9: keep `ecf serve` running and press "ENVIAR PRUEBA DE COMPROBANTES" in the portal (Paso 8).');
    if (counts.approvals === 0) this.log('Nothing yet for Paso 11: press "ENVIAR PRUEBA DE APROBACIONES COMERCIALES" in the portal (Paso 10).');
    this.log('Refused approvals (HTTP 400) are not kept by the receiver; the server log shows them.');
    return { ...arrivals, pasosRecorded: [9, 11] };
  }

  /** Looks again every few seconds and prints what is new, recording Pasos 9 and 11 as things arrive. */
  private async follow(engine: Awaited<ReturnType<CertifyArrivals['engine']>>, tenantId: string, since: string | undefined, first: Awaited<ReturnType<typeof certificationArrivals>>) {
    const seen = new Set([...first.ecf.map((e) => `e|${e.receivedAt}|${e.issuerRnc}|${e.encf}`), ...first.approvals.map((a) => `a|${a.receivedAt}|${a.buyerRnc}|${a.encf}`)]);
    this.log('Watching for what the authority sends (Ctrl-C to stop)…');
    let stopped = false;
    const stop = () => void (stopped = true);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let last = first;
    try {
      while (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
        if (stopped) break;
        last = await certificationArrivals(engine, tenantId, since === undefined ? {} : { since });
        let fresh = false;
        for (const e of last.ecf) {
          const key = `e|${e.receivedAt}|${e.issuerRnc}|${e.encf}`;
          if (seen.has(key)) continue;
          seen.add(key);
          fresh = true;
          this.log(`Paso 9:  ${e.receivedAt}  ${e.encf}  from ${e.issuerRnc}  → ${e.answer === 'received' ? 'ARECF Estado 0 (recibido)' : `ARECF Estado 1, motivo ${e.motivo}: ${e.reason ?? ''}`}`);
        }
        for (const a of last.approvals) {
          const key = `a|${a.receivedAt}|${a.buyerRnc}|${a.encf}`;
          if (seen.has(key)) continue;
          seen.add(key);
          fresh = true;
          this.log(`Paso 11: ${a.receivedAt}  ${a.encf}  from buyer ${a.buyerRnc}  ${a.decision}  → ${a.answer}`);
        }
        if (fresh) await recordArrivals(engine, tenantId, last);
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return { ...last, pasosRecorded: [9, 11] };
  }
}

const FOLLOW_EVERY_MS = 3000;
