// What the sandbox's own checks cost, as a ratio measured in one run on this machine: N e-CF 31
// signed by the engine's signer (not timed) are sent to the sandbox over loopback HTTP with the
// engine's client, C at a time, then each one's result (consultaresultado) and standing
// (consultaestado) are queried (timed). The sandbox checks every document as the authority does
// (file name, XSD, signature, security code, sequence rules), so a received e-CF costs at least one
// RSA-2048 public-key verification: the run prints documents per second ÷ raw RSA-2048 verifies
// per second (node:crypto), and the time per document. Then the checks alone on one document, in
// this process without HTTP: the sandbox's (one parse, signature.ts) and, for comparison, the way
// they were made before issue 23 (the engine receiver's xml-crypto checkSignature, which parses the
// document again and walks it with XPath, and one tree walk per fact). No pass/fail.
// Environment: BENCH_N (default 500), BENCH_C (in flight, default 8).
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/engine/clock.js';
import { signingCredentials } from '../src/engine/certificates/certificates.js';
import { prepareDocument } from '../src/engine/documents/prepare.js';
import { signEcf } from '../src/engine/documents/sign-ecf.js';
import { openEngine } from '../src/engine/engine.js';
import { signingKey } from '../src/engine/signing/xmldsig.js';
import { TaxauthClient } from '../src/engine/taxauth/client.js';
import { TokenCache } from '../src/engine/taxauth/token-cache.js';
import { verifySignature as engineVerify } from '../src/engine/signing/verify.js';
import { validateAgainstSchema } from '../src/engine/xml/xsd.js';
import { parseXml, textOf, textsOf, verifySignature } from '../src/sandbox/verify.js';
import { setSetting } from '../src/engine/settings/settings.js';
import { startSandbox } from '../src/sandbox/index.js';
import { issuer, payload } from './documents.js';
import { rate } from './measure.js';
import { seedBenchIssuer } from './seed.js';

const N = Number(process.env.BENCH_N ?? 500);
const C = Number(process.env.BENCH_C ?? 8);

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-sandbox-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const clock = new ManualClock(new Date());
const engine = await openEngine({ dataDir, clock });
const { tenantId, rnc } = await seedBenchIssuer(engine);

// ---- N signed e-CF 31 (not timed), each a different sale
const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: clock.now().toISOString().slice(0, 10) });
if (!outcome.document) throw new Error(JSON.stringify(outcome.errors));
const computed = outcome.document.computed;
const credentials = await signingCredentials(engine, tenantId);
const key = signingKey(credentials.privateKey, credentials.certificate);
const docs = Array.from({ length: N }, (_, i) => {
  const encf = `E31${String(i + 1).padStart(10, '0')}`;
  const signed = signEcf({
    document: outcome.document!,
    computed,
    issuer: { ...issuer, rnc },
    numbering: { encf, sequenceExpiresOn: '2027-12-31' },
    key,
    environment: 'test',
    now: clock.now(),
  });
  return { encf, xml: Buffer.from(signed.xml, 'utf8'), securityCode: signed.securityCode };
});

const sandbox = await startSandbox({ host: '127.0.0.1', clock });
await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
const client = new TaxauthClient({ baseUrl: `${sandbox.url}/testecf`, fcUrl: `${sandbox.url}/testecf`, timeoutMs: 30_000 });
const token = await new TokenCache().token(engine, tenantId, 'test');

/** Runs `work` over every document, C at a time. */
async function pool<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

// ---- reception + status (timed)
const cpuStart = process.cpuUsage();
const start = performance.now();
const trackIds = new Map<string, string>();
await pool(docs, async (d) => {
  const { trackId } = await client.sendEcf(token, { rnc, encf: d.encf, xml: d.xml });
  trackIds.set(d.encf, trackId);
});
const sent = performance.now();
let accepted = 0;
await pool(docs, async (d) => {
  const verdict = await client.result(token, trackIds.get(d.encf)!);
  const standing = await client.status(token, { rnc, encf: d.encf, securityCode: d.securityCode });
  if (verdict.code === 1 && standing.code === 1) accepted++;
});
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
await sandbox.close();
await engine.close();
if (accepted !== N) throw new Error(`only ${accepted} of ${N} e-CF were accepted`);

// ---- the raw baseline, on the idle process afterwards
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signedInfoSized = Buffer.alloc(800, 'a');
const signature = sign('sha256', signedInfoSized, privateKey);
const rawVerify = rate(() => verify('sha256', signedInfoSized, publicKey, signature));

// ---- the checks alone, on one document
const sample = docs[0]!.xml.toString('utf8');
const at = clock.now();
const FACTS = ['MontoTotal', 'TotalITBIS', 'FechaEmision', 'FechaHoraFirma', 'RNCComprador', 'IdentificadorExtranjero', 'CodigoSeguridadeCF', 'RNCEmisor', 'eNCF'] as const;
const checks = (verifyOne: typeof verifySignature, facts: (root: Parameters<typeof textsOf>[0]) => unknown) => () => {
  const parsed = parseXml(sample);
  if (!parsed.ok || !validateAgainstSchema('ecf31', sample).valid || !verifyOne(sample, parsed, at).ok) throw new Error('the sample does not pass');
  facts(parsed.root);
};
const checksNow = rate(checks(verifySignature, (root) => textsOf(root, FACTS)), 3, 400);
const checksBefore = rate(checks(engineVerify, (root) => FACTS.map((n) => textOf(root, n))), 3, 400);

const perSecond = N / seconds;
const fmt = (n: number) => n.toFixed(0).padStart(7);
const ratio = (n: number) => (n / rawVerify).toFixed(4);
console.log(`N = ${N} e-CF 31 (${docs[0]!.xml.length} bytes signed), ${C} requests in flight, sandbox and client in this process`);
console.log(`raw RSA-2048 verify                      ${fmt(rawVerify)} /s`);
console.log(
  `sandbox reception + result + status      ${fmt(perSecond)} docs/s   ratio to raw verify ${ratio(perSecond)}` +
    `   (${((seconds * 1000) / N).toFixed(2)} ms/doc wall, ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms/doc CPU; receptions ${(((sent - start) / N)).toFixed(2)} ms/doc)`,
);
console.log(`sandbox checks alone, now                ${fmt(checksNow)} docs/s   ratio to raw verify ${ratio(checksNow)}   (${(1000 / checksNow).toFixed(2)} ms/doc: parse, XSD, signature, facts)`);
console.log(`sandbox checks alone, as before issue 23 ${fmt(checksBefore)} docs/s   ratio to raw verify ${ratio(checksBefore)}   (${(1000 / checksBefore).toFixed(2)} ms/doc)`);
