import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { getCertification, recordPaso } from '../../../engine/certification/index.js';
import { checkReceiver, PROBE_ISSUER_RNC, probeTraces } from '../../../engine/certification/receiver.js';

export default class CertifyReceiver extends EcfCommand {
  static override description =
    'Pasos 7–11: show the receiver URLs to type in the portal and call them as the tax authority will (seed, token, an e-CF for another buyer, an approval of an unknown e-NCF), reporting what each answered';
  static override examples = [
    '<%= config.bin %> certify receiver --url https://ecf.example.do',
    '<%= config.bin %> certify receiver --url https://example.do/receptor --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    url: Flags.string({ description: 'The public base the authority will call: https://host[/prefix], without /fe/…', required: true, helpValue: 'https://HOST[/PREFIX]' }),
  };

  async run() {
    const { flags } = await this.parse(CertifyReceiver);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const startedAt = engine.clock.now().toISOString();
    const result = await checkReceiver({ url: flags.url, tenantRnc: tenant.rnc, tenantId: tenant.id, now: engine.clock.now() });
    const traces = await probeTraces(engine, tenant.id, startedAt);
    const certification = await getCertification(engine, tenant.id);
    if (certification) {
      await recordPaso(engine, tenant.id, 7, {
        state: result.ok && result.https ? 'done' : 'failed',
        note: result.ok
          ? result.https
            ? `The receiver at ${result.urls.typed} answered as the authority expects; type it in the portal and press "CONFIRMAR URLS".`
            : `The receiver answered, but over http://; the portal needs https:// (ecf serve --tls-cert, or a reverse proxy).`
          : `The receiver at ${result.urls.typed} did not answer as expected: ${result.checks.filter((c) => !c.ok).map((c) => c.name).join(', ')}.`,
        detail: { url: result.urls.base, typed: result.urls.typed, checks: result.checks.map((c) => ({ name: c.name, ok: c.ok, got: c.got })) },
      });
    }

    this.log('Type in the portal (it shows https:// and appends the rest):');
    this.log(`  URL de recepción:            ${result.urls.typed}   → ${result.urls.recepcion}`);
    this.log(`  URL de aprobación comercial: ${result.urls.typed}   → ${result.urls.aprobacionComercial}`);
    this.log(`  URL de autenticación:        ${result.urls.typed}   → ${result.urls.semilla} | …/validacioncertificado`);
    if (!result.https) this.log('  Warning: this URL is http://; the portal only takes https:// (see `ecf serve --tls-cert`).');
    this.log('');
    for (const c of result.checks) {
      this.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}  ${c.url}`);
      this.log(`     expected: ${c.expected}`);
      this.log(`     got:      ${c.got}`);
    }
    this.log('');
    this.log(
      traces.refusals || traces.approvals
        ? `Left in this tenant's store: ${traces.refusals} refused e-CF (not_received, motivo 4, issuer ${PROBE_ISSUER_RNC}), ${traces.approvals} approvals.`
        : 'Nothing was left in this store (the receiver at that URL may be another installation).',
    );
    this.log(result.ok ? 'All four routes answer as the authority expects.' : 'Some routes did not answer as expected; fix them before confirming the URLs in the portal.');
    if (result.hint) this.log(`Hint: ${result.hint}`);
    if (certification) this.log(`Paso 7 recorded as ${result.ok && result.https ? 'done' : 'failed'}.`);
    if (!result.ok) process.exitCode = 1;
    return { ...result, leftInStore: traces, pasoRecorded: certification ? 7 : null };
  }
}
