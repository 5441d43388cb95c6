import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificationArrivals, recordArrivals } from '../../../src/engine/certification/arrivals.js';
import { PROBE_ISSUER_RNC, checkReceiver, receiverUrls } from '../../../src/engine/certification/receiver-check.js';
import { getCertification, startCertification } from '../../../src/engine/certification/state.js';
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ValidationError } from '../../../src/engine/errors.js';
import { REQUIRE_BEARER_SETTING } from '../../../src/engine/reception/queries.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { updateTenant } from '../../../src/engine/tenants/tenants.js';
import { BIN, cliFor } from '../../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir, waitUntil } from '../../helpers.js';
import { newId } from '../../../src/engine/ids.js';
import { receptionHarness } from '../reception/harness.js';
import { NO_DRAIN } from '../../serve-process.js';

describe('the receiver check (Pasos 7–11)', () => {
  it('prints the URLs to type: host and prefix, with the fixed suffixes the portal appends', () => {
    expect(receiverUrls('https://ecf.example.do/receptor/')).toEqual({
      typed: 'ecf.example.do/receptor',
      base: 'https://ecf.example.do/receptor',
      recepcion: 'https://ecf.example.do/receptor/fe/recepcion/api/ecf',
      aprobacionComercial: 'https://ecf.example.do/receptor/fe/aprobacioncomercial/api/ecf',
      semilla: 'https://ecf.example.do/receptor/fe/autenticacion/api/semilla',
      validacionCertificado: 'https://ecf.example.do/receptor/fe/autenticacion/api/validacioncertificado',
    });
    expect(receiverUrls('https://ecf.example.do:8443').typed).toBe('ecf.example.do:8443');
    for (const bad of ['ecf.example.do', 'ftp://x.do', 'https://x.do/fe/recepcion/api/ecf', 'https://x.do/?a=1']) {
      expect(() => receiverUrls(bad), bad).toThrow(ValidationError);
    }
  });

  it('a real receiver passes all four checks, with a bearer token required or not; the e-CF leaves only a refusal, the approval nothing', async () => {
    const h = await receptionHarness();
    for (const requireBearer of [false, true]) {
      await setSetting(h.engine, REQUIRE_BEARER_SETTING, requireBearer, h.tenant.id);
      const result = await checkReceiver({ url: h.receiverUrl, tenantRnc: h.tenant.rnc, now: h.engine.clock.now() });
      expect(result.checks.map((c) => [c.name, c.ok, c.got])).toEqual([
        ['semilla', true, expect.stringContaining('HTTP 200')],
        ['validacioncertificado', true, expect.stringContaining('a token that expires')],
        ['recepcion', true, expect.stringMatching(/^HTTP 200, ARECF Estado 1, motivo 4, RNCComprador \d+, signature valid/)],
        ['aprobacioncomercial', true, expect.stringContaining('HTTP 400')],
      ]);
      expect(result).toMatchObject({ ok: true, https: false });
      expect(result.checks[2]!.detail).toMatchObject({ rncComprador: h.tenant.rnc, estado: '1', codigoMotivoNoRecibido: '4', signatureValid: true });
    }
    // What the receiver kept (receive.ts stores every e-CF it answers): a refusal per run, nothing as received.
    const kept = await h.engine.db.selectFrom('received_ecf').select(['status', 'reason_code', 'issuer_rnc']).where('tenant_id', '=', h.tenant.id).execute();
    expect(kept).toEqual([
      { status: 'not_received', reason_code: 4, issuer_rnc: PROBE_ISSUER_RNC },
      { status: 'not_received', reason_code: 4, issuer_rnc: PROBE_ISSUER_RNC },
    ]);
    expect(await h.engine.db.selectFrom('inbound_approvals').selectAll().execute()).toEqual([]);
  }, 60_000);

  it('reports what was expected and what came back when the URL is not this tenant’s receiver', async () => {
    const h = await receptionHarness();
    const wrongTenant = await checkReceiver({ url: `${h.url}/00000000-0000-4000-8000-000000000000`, tenantRnc: h.tenant.rnc, now: h.engine.clock.now() });
    expect(wrongTenant.ok).toBe(false);
    expect(wrongTenant.checks.map((c) => [c.name, c.ok])).toEqual([
      ['semilla', false],
      ['validacioncertificado', false],
      ['recepcion', false],
      ['aprobacioncomercial', false],
    ]);
    expect(wrongTenant.checks[0]!.got).toMatch(/^HTTP 404/);
    expect(wrongTenant.checks[1]!.got).toBe('not tried: there was no seed');
    expect(wrongTenant.checks[2]!.expected).toContain('CodigoMotivoNoRecibido 4');

    expect(wrongTenant.hint).toContain('the URL must end with the tenant');
    // The URL without /{tenantId}: four 404s, and the hint says what is missing, with the id.
    const bare = await checkReceiver({ url: h.url, tenantRnc: h.tenant.rnc, tenantId: h.tenant.id, now: h.engine.clock.now() });
    expect(bare.ok).toBe(false);
    expect(bare.hint).toBe(
      `Every route answered 404: a tenant's receiver routes are /{tenantId}/fe/..., so the URL must end with the tenant's id (${h.url}/${h.tenant.id}), unless a proxy in front adds it (rewrite /fe/ to /${h.tenant.id}/fe/; see docs/certification.md). \`ecf tenant show\` gives the id.`,
    );
    expect((await checkReceiver({ url: h.receiverUrl, tenantRnc: h.tenant.rnc, tenantId: h.tenant.id, now: h.engine.clock.now() })).hint).toBeNull();

    const nobody = await checkReceiver({ url: 'http://127.0.0.1:9/x', tenantRnc: h.tenant.rnc, now: h.engine.clock.now() });
    expect(nobody.hint).toBeNull();
    expect(nobody.checks[0]!.got).toMatch(/^no answer \(.*ECONNREFUSED/);
  }, 60_000);

  it('arrivals: what the sandbox’s taxpayer sent in cert since the certification started, with the answers; records Pasos 9 and 11', async () => {
    const h = await receptionHarness();
    await updateTenant(h.engine, h.tenant.id, { defaultEnvironment: 'cert' });
    await addRange(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: 31, rangeFrom: 1, rangeTo: 100, expiresOn: '2035-12-31' });
    // Before the certification: not reported.
    await h.sendFresh();
    await expect(certificationArrivals(h.engine, h.tenant.id)).rejects.toMatchObject({ code: 'Certification.NotStarted' });
    h.engine.clock.advance(60_000);
    await startCertification(h.engine, h.tenant.id);
    h.engine.clock.advance(60_000);

    const empty = await certificationArrivals(h.engine, h.tenant.id);
    expect(empty.counts).toEqual({ ecf: 0, received: 0, notReceived: 0, approvals: 0 });
    await recordArrivals(h.engine, h.tenant.id, empty);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[9]).toMatchObject({ state: 'in_progress' });

    // Paso 9: the authority (played by the sandbox's taxpayer) sends two e-CF, one for another buyer.
    const sent = [];
    for (const buyerRnc of [h.tenant.rnc, '101010101']) {
      const res = await fetch(`${h.sandbox.url}/_sandbox/taxpayer/send-ecf`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ receiverUrl: h.receiverUrl, buyerRnc, authenticate: true }),
      });
      expect(res.status).toBe(200);
      sent.push((await res.json()) as { encf: string; status: number; body: string });
    }
    expect(sent.map((s) => s.status)).toEqual([200, 200]);
    // The receiver check's probe in between is not the authority's.
    await checkReceiver({ url: h.receiverUrl, tenantRnc: h.tenant.rnc, now: h.engine.clock.now() });

    // Paso 11: an approval over one of the tenant's cert e-CF.
    const issued = (await issueEcf(h.engine, h.tenant.id, { idempotencyKey: 'cert-1', payload: invoice31(), environment: 'cert' })).ecf;
    const approval = h.sandbox.control.taxpayer.makeApproval({
      issuerRnc: h.tenant.rnc,
      encf: issued.encf!,
      issueDate: issued.issueDate,
      montoTotal: issued.montoTotal.toFixed(2),
      decision: 'rejected',
      rejectionReason: 'Precio distinto al acordado',
    });
    expect((await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, approval, { encf: issued.encf! })).status).toBe(200);

    const arrivals = await certificationArrivals(h.engine, h.tenant.id);
    expect(arrivals.counts).toEqual({ ecf: 2, received: 1, notReceived: 1, approvals: 1 });
    expect(arrivals.ecf.map((e) => [e.encf, e.answer, e.motivo])).toEqual([
      [sent[0]!.encf, 'received', null],
      [sent[1]!.encf, 'not_received', 4],
    ]);
    expect(arrivals.ecf[1]!.reason).toContain('RNC Comprador no corresponde');
    expect(arrivals.approvals).toEqual([
      expect.objectContaining({ encf: issued.encf, decision: 'rejected', rejectionReason: 'Precio distinto al acordado', answer: 'HTTP 200' }),
    ]);
    await recordArrivals(h.engine, h.tenant.id, arrivals);
    const pasos = (await getCertification(h.engine, h.tenant.id))!.pasos;
    expect(pasos[9]).toMatchObject({ state: 'done', detail: { ecf: 2, received: 1, notReceived: 1 } });
    expect(pasos[11]).toMatchObject({ state: 'done', detail: { approvals: 1, encfs: [issued.encf] } });

    // A later window that finds nothing does not undo Pasos already done.
    h.engine.clock.advance(3_600_000);
    const later = await certificationArrivals(h.engine, h.tenant.id, { since: h.engine.clock.now().toISOString() });
    expect(later.counts.ecf).toBe(0);
    await recordArrivals(h.engine, h.tenant.id, later);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[9].state).toBe('done');
    await expect(certificationArrivals(h.engine, h.tenant.id, { since: 'ayer' })).rejects.toThrow(ValidationError);
  }, 60_000);
});

/** A self-signed certificate for 127.0.0.1, made by openssl. */
function selfSigned(dir: string): { cert: string; key: string } {
  const [cert, key] = [join(dir, 'tls.crt'), join(dir, 'tls.key')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '30', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}

async function serveTls(dataDir: string, tls: { cert: string; key: string }): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-jobs', '--log-level', 'warn', '--data-dir', dataDir, '--tls-cert', tls.cert, '--tls-key', tls.key, ...NO_DRAIN], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving (https:\/\/[^\s]+)\/api\/v1/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`ecf serve exited with ${code}: ${out}`)));
  });
  return { child, base };
}

describe('ecf certify receiver | arrivals', () => {
  it('checks the receiver `ecf serve` runs over HTTPS, records Paso 7, and reports arrivals', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    await startCertification(engine, tenant.id);
    await engine.close();
    const tls = selfSigned(tempDir('ecf-tls-'));
    const { child, base } = await serveTls(dataDir, tls);
    try {
      // The CLI trusts the test's own certificate the way the authority trusts a public one.
      const { json, ecf } = cliFor(dataDir, { NODE_EXTRA_CA_CERTS: tls.cert });
      const checked = await json(['certify', 'receiver', '--url', `${base}/${tenant.id}`]);
      expect(checked).toMatchObject({ ok: true, https: true, pasoRecorded: 7, leftInStore: { refusals: 1, approvals: 0 } });
      expect(checked.urls.typed).toBe(`${base.slice('https://'.length)}/${tenant.id}`);
      expect(checked.checks[2].got).toMatch(/^HTTP 200, ARECF Estado 1, motivo 4/);

      // People read the same: the URLs to type (printed whatever the checks find), then expected and got per check.
      const wrong = await ecf(['certify', 'receiver', '--url', `${base}/00000000-0000-4000-8000-000000000000`]);
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toContain(`URL de recepción:            ${base.slice(8)}/00000000-0000-4000-8000-000000000000   → ${base}/00000000-0000-4000-8000-000000000000/fe/recepcion/api/ecf`);
      expect(wrong.stdout).toMatch(/FAIL semilla[^\n]*\n\s+expected: HTTP 200 with a SemillaModel[^\n]*\n\s+got: {6}HTTP 404/);

      const arrivals = await json(['certify', 'arrivals']);
      expect(arrivals).toMatchObject({ counts: { ecf: 0, approvals: 0 }, pasosRecorded: [9, 11] });
      const status = await openEngine({ dataDir });
      const pasos = (await getCertification(status, tenant.id))!.pasos;
      await status.close();
      expect(pasos[7]).toMatchObject({ state: 'failed' }); // the last check was of a wrong URL
      expect(pasos[9]).toMatchObject({ state: 'in_progress' });

      // --follow prints what arrives while it watches, and records Paso 9 when it does.
      const follower = spawn(process.execPath, [BIN, 'certify', 'arrivals', '--follow', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let seen = '';
      follower.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
      await waitUntil(() => seen.includes('Watching'), 'arrivals --follow to start watching');
      const store = await openEngine({ dataDir });
      await store.db
        .insertInto('received_ecf')
        .values({
          id: newId(), tenant_id: tenant.id, environment: 'cert', status: 'received', reason_code: null, reason: null,
          issuer_rnc: '131880681', issuer_name: 'DGII', buyer_rnc: tenant.rnc, encf: 'E310000000077', type: 31, issue_date: '2026-03-10',
          monto_total: '118.00', security_code: 'abc123', file_name: `131880681E310000000077.xml`, xml: Buffer.from('<ECF/>'),
          xml_sha256: 'f'.repeat(64), arecf_xml: Buffer.from('<ARECF/>'), received_at: new Date().toISOString(),
        })
        .execute();
      await store.close();
      await waitUntil(() => seen.includes('Paso 9:') && seen.includes('E310000000077'), 'arrivals --follow to print the new e-CF');
      follower.kill('SIGINT');
      expect(await once(follower, 'exit')).toEqual([0, null]);
      const after = await openEngine({ dataDir });
      expect((await getCertification(after, tenant.id))!.pasos[9]).toMatchObject({ state: 'done' });
      await after.close();
    } finally {
      child.kill('SIGTERM');
    }
    await once(child, 'exit');
  }, 120_000);
});
