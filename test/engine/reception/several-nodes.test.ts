import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { REQUIRE_BEARER_SETTING } from '../../../src/engine/reception/queries.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { signSeed } from '../../../src/engine/taxauth/token-cache.js';
import { makeForeignEcf, makeTaxpayerIdentity } from '../../../src/sandbox/taxpayer.js';
import { TEST_SERVER_URL, seedIssuer, testDataDir } from '../../helpers.js';
import { startServe } from '../../serve-process.js';

/**
 * Three `ecf serve` processes on one PostgreSQL database behind no balancer
 * and no sticky sessions: another taxpayer takes its seed from node A,
 * trades it for a bearer token at node B and delivers its e-CF at node C.
 *
 * PostgreSQL only. Several nodes are PostgreSQL's deployment (a SQLite file
 * belongs to one machine). Three processes on one SQLite file pass this test
 * too, but the SQLite side of the store code, two connections to one file,
 * is proven by shared-auth.test.ts, and three more process starts in the
 * SQLite run would cost time and prove nothing more.
 * The processes run without jobs (`--no-jobs`): the receiver answers inside
 * the request, and the jobs would only add worker threads to three starts.
 */

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

function upload(xml: string, fileName: string): FormData {
  const form = new FormData();
  form.append('xml', new Blob([xml], { type: 'text/xml' }), fileName);
  return form;
}

describe.skipIf(!TEST_SERVER_URL)("the B2B receiver's authentication across three ecf serve processes on one PostgreSQL", () => {
  it('a seed from node A, its token from node B, the e-CF delivered at node C: received and stored once; the seed buys no second token anywhere', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const nodes: ChildProcess[] = [];
    try {
      // Every node signs the ARECF with the certificate from the shared data directory's encrypted files, never a keychain.
      await setSetting(engine, 'secrets.store', 'file');
      const { tenant } = await seedIssuer(engine);
      await setSetting(engine, REQUIRE_BEARER_SETTING, true, tenant.id);

      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      for (const k of ['ECF_DATA_DIR', 'ECF_DATABASE_URL', 'ECF_TAXAUTH_SANDBOX_URL']) delete env[k];
      const started = await Promise.all([0, 1, 2].map(() => startServe(dataDir, { env, logLevel: 'error', args: ['--no-jobs'] })));
      nodes.push(...started.map((s) => s.child));
      const [a, b, c] = started.map((s) => `${s.base}/${tenant.id}/fe`) as [string, string, string];

      const identity = makeTaxpayerIdentity(new Date());
      const seed = await fetch(`${a}/autenticacion/api/semilla`);
      expect(seed.status).toBe(200);
      const signedSeed = signSeed(await seed.text(), identity.key);
      const grant = await fetch(`${b}/autenticacion/api/validacioncertificado`, { method: 'POST', headers: { accept: 'application/json' }, body: upload(signedSeed, 'semilla.xml') });
      expect(grant.status).toBe(200);
      const { token } = (await grant.json()) as { token: string };

      // Spent at B: neither C nor A (nor B again) sells a second token for it.
      for (const node of [c, a, b]) {
        const again = await fetch(`${node}/autenticacion/api/validacioncertificado`, { method: 'POST', body: upload(signedSeed, 'semilla.xml') });
        expect(again.status).toBe(400);
        expect(await again.text()).toBe('the seed was not issued by this receiver');
      }

      const encf = 'E310000000001';
      const { xml } = makeForeignEcf(identity, new Date(), { buyerRnc: tenant.rnc, encf });
      const fileName = `131880681${encf}.xml`;
      const anonymous = await fetch(`${c}/recepcion/api/ecf`, { method: 'POST', body: upload(xml, fileName) });
      expect(anonymous.status).toBe(401);
      const delivered = await fetch(`${c}/recepcion/api/ecf`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: upload(xml, fileName) });
      expect(delivered.status).toBe(200);
      const arecf = await delivered.text();
      expect(tag(arecf, 'Estado')).toBe('0');
      expect(tag(arecf, 'eNCF')).toBe(encf);
      expect(tag(arecf, 'RNCComprador')).toBe(tenant.rnc);

      // The same bytes again at A, with the same token: the same answer, nothing stored twice.
      const resent = await fetch(`${a}/recepcion/api/ecf`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: upload(xml, fileName) });
      expect(resent.status).toBe(200);
      expect(await resent.text()).toBe(arecf);
      const stored = await engine.db.selectFrom('received_ecf').select(['encf', 'status']).where('tenant_id', '=', tenant.id).execute();
      expect(stored).toEqual([{ encf, status: 'received' }]);
    } finally {
      for (const n of nodes) if (n.exitCode === null && n.signalCode === null) n.kill('SIGTERM');
      await Promise.all(nodes.map((n) => (n.exitCode === null && n.signalCode === null ? new Promise((resolve) => n.once('exit', resolve)) : undefined)));
      await engine.close();
    }
  }, 60_000);
});
