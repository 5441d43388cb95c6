import { afterEach } from 'vitest';
import { setSetting } from '../../src/engine/settings/settings.js';
import { startCertification } from '../../src/engine/certification/state.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { seedIssuer, testEngine } from '../helpers.js';

const running: RunningSandbox[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

/**
 * A tenant with a certificate, its `cert` environment pointed at a real
 * sandbox over loopback (sharing the test's clock), a certification started,
 * and the sandbox's certification set for its RNC: the workbooks are fetched
 * over HTTP as a person would download them.
 */
export async function certificationHarness(variant: 'section8' | 'full' = 'section8') {
  const engine = await testEngine();
  const sandbox = await startSandbox({ clock: engine.clock });
  running.push(sandbox);
  await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
  await setSetting(engine, 'taxauth.fc_url.cert', `${sandbox.url}/certecf`);
  await setSetting(engine, 'taxauth.timeout_ms', 2000);
  const seeded = await seedIssuer(engine);
  await startCertification(engine, seeded.tenant.id);
  const rnc = seeded.tenant.rnc;
  const base = `${sandbox.url}/_sandbox/certification/${rnc}`;
  const started = await fetch(`${base}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant }) });
  if (!started.ok) throw new Error(`sandbox certification start: ${started.status} ${await started.text()}`);
  const workbook = async (paso: 2 | 3) => {
    const r = await fetch(`${base}/paso${paso}.xlsx`);
    if (!r.ok) throw new Error(`sandbox workbook ${paso}: ${r.status}`);
    return Buffer.from(await r.arrayBuffer());
  };
  const progress = async () => (await (await fetch(base)).json()) as Record<string, unknown>;
  /** Between polls: the sandbox judges on the shared clock, so waiting is moving it. */
  const wait = async (ms: number) => engine.clock.advance(ms);
  return { engine, sandbox, ...seeded, rnc, workbook, progress, wait, base };
}
