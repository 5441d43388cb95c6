import { certificationHarness } from './simulation-harness.js';

/**
 * A tenant with a certificate, its `cert` environment pointed at a real
 * sandbox over loopback (sharing the test's clock), a certification started
 * (simulation-harness.ts), and the sandbox's certification set for its RNC:
 * the workbooks are fetched over HTTP as a person would download them.
 */
export async function sandboxSetHarness(variant: 'section8' | 'full' = 'section8') {
  const h = await certificationHarness({ paso2Cases: false });
  const rnc = h.tenant.rnc;
  const base = `${h.sandbox.url}/_sandbox/certification/${rnc}`;
  const started = await fetch(`${base}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant }) });
  if (!started.ok) throw new Error(`sandbox certification start: ${started.status} ${await started.text()}`);
  const workbook = async (paso: 2 | 3) => {
    const r = await fetch(`${base}/paso${paso}.xlsx`);
    if (!r.ok) throw new Error(`sandbox workbook ${paso}: ${r.status}`);
    return Buffer.from(await r.arrayBuffer());
  };
  const progress = async () => (await (await fetch(base)).json()) as Record<string, unknown>;
  /** Between polls: the sandbox judges on the shared clock, so waiting is moving it. */
  const wait = async (ms: number) => h.engine.clock.advance(ms);
  return { ...h, rnc, workbook, progress, wait, base };
}
