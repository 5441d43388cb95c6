// The certification demo, run through `npm run demo:certify` (which builds first): the whole of the
// authority's certification of a taxpayer as an electronic issuer (the 14 Pasos), against the
// built-in sandbox's certification mode, through the `ecf certify` commands a person would type.
// What only a person can do in the real portal (download a workbook, upload files, press its
// buttons, read its verdicts) the demo does against the sandbox in the person's place, and says so.
//
//   1. a fresh data directory ./.data/certify-demo (or $ECF_DATA_DIR), a tenant (RNC 130000002)
//      and a test signing certificate;
//   2. `ecf sandbox` (the authority, with its certification mode) and `ecf serve` (the tenant's
//      receiver, for Pasos 9 and 11), both on free loopback ports;
//   3. every Paso in order, then `ecf certify status`: every Paso done.
// Files it writes (workbooks, signed XML, consumo XMLs, PDFs, the report) go to <data dir>/certify-files.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ecfRunner, fail, setupTenant } from './demo-kit.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'ecf.js');
const dataDir = process.env.ECF_DATA_DIR || join(root, '.data', 'certify-demo');
const RNC = '130000002';
const files = join(dataDir, 'certify-files');

// A certification starts from nothing: the demo's own directory is made anew.
rmSync(dataDir, { recursive: true, force: true });

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** Starts `ecf <args>` in the background and resolves once a line of its output matches `ready`. */
function background(args, ready, env) {
  const child = spawn(process.execPath, [bin, ...args, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (ready.test(line)) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`ecf ${args[0]} exited (${code}) before it was ready`)));
  });
}
const children = [];
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** What the person does in the portal, played against the sandbox. */
async function portal(what, path, init) {
  const r = await fetch(`${sandboxUrl}/_sandbox/certification/${RNC}${path}`, init);
  const body = await r.json();
  if (!r.ok) fail(`the sandbox's portal refused ${what}: ${JSON.stringify(body)}`);
  return body;
}
const step = (text) => console.log(`\n== ${text}`);

// 1. The tenant.
let ecf = ecfRunner(bin, dataDir);
const tenant = await setupTenant(ecf, { rnc: RNC, legalName: 'Demo Certificación SRL', tradeName: 'Demo Certificación', dataDir });
mkdirSync(files, { recursive: true });
// Pasos 9 and 11 arrive at the receiver, which files them under the tenant's default environment.
ecf(['tenant', 'update', tenant.id, '--env', 'cert']);

// 2. The authority (sandbox) and the tenant's receiver over HTTPS, as the portal requires. The
//    receiver's certificate is a self-signed one for 127.0.0.1 made here; the sandbox and the
//    commands trust it through NODE_EXTRA_CA_CERTS (a real receiver has a public certificate).
const tlsCert = join(files, 'receiver-cert.pem');
const tlsKey = join(files, 'receiver-key.pem');
try {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-keyout', tlsKey, '-out', tlsCert, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
} catch (e) {
  fail(`openssl could not make the receiver's TLS certificate: ${e.stderr?.toString().trim() || e.message}`);
}
const trust = { NODE_EXTRA_CA_CERTS: tlsCert };
const sandboxLine = await background(['sandbox', '--port', String(await freePort())], /tax authority sandbox at /, trust);
const sandboxUrl = /at (http:\/\/\S+)/.exec(sandboxLine)[1];
const env = { ...trust, ECF_TAXAUTH_SANDBOX_URL: sandboxUrl };
ecf = ecfRunner(bin, dataDir, env);
const servePort = await freePort();
await background(['serve', '--port', String(servePort), '--log-level', 'warn', '--tls-cert', tlsCert, '--tls-key', tlsKey], /^ecf serving /, env);
const receiverUrl = `https://127.0.0.1:${servePort}/${tenant.id}`;
console.log(`Sandbox (the authority) at ${sandboxUrl}; the tenant's receiver at ${receiverUrl}`);

step('Start');
ecf(['certify', 'start', '--tenant', tenant.id]);
await portal('the certification set', '/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"variant":"full"}' });

step('Paso 1: sign the application the portal generates');
// The portal's XML has no public schema (CERTIFICATION.md §5): a stand-in with the form's fields.
const application = join(files, 'postulacion.xml');
writeFileSync(
  application,
  `<?xml version="1.0" encoding="utf-8"?>\n<Postulacion>\n  <RNC>${RNC}</RNC>\n  <RazonSocial>Demo Certificación SRL</RazonSocial>\n  <TipoSoftware>PROPIO</TipoSoftware>\n  <NombreSoftware>ecf-appliance</NombreSoftware>\n</Postulacion>\n`,
);
console.log(`signed: ${ecf(['certify', 'sign', application, '--paso', '1', '--tenant', tenant.id]).out.out ?? 'postulacion.signed.xml'}`);

step('Paso 2: the e-CF test set');
const paso2 = join(files, 'paso2.xlsx');
ecf(['certify', 'workbook', '--paso', '2', '--out', paso2, '--tenant', tenant.id]);
const imported = ecf(['certify', 'import', paso2, '--tenant', tenant.id]).out;
console.log(`imported ${imported.total} cases: ${Object.entries(imported.byKind).map(([k, n]) => `${n} ${k}`).join(', ')}`);
const run2 = ecf(['certify', 'run', '--paso', '2', '--tenant', tenant.id]).out;
console.log(run2.note);
const consumo = join(files, 'consumo');
const uploads = ecf(['certify', 'uploads', '--out', consumo, '--tenant', tenant.id]).out;
for (const name of uploads.files) {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(consumo, name))], { type: 'text/xml' }), name);
  await portal(`the consumo upload ${name}`, '/consumo', { method: 'POST', body: form });
}
console.log(`uploaded ${uploads.files.length} consumo XMLs in the portal's box (played against the sandbox)`);

step('Paso 3: commercial approvals');
const paso3 = join(files, 'paso3.xlsx');
ecf(['certify', 'workbook', '--paso', '3', '--out', paso3, '--tenant', tenant.id]);
ecf(['certify', 'import', paso3, '--tenant', tenant.id]);
console.log(ecf(['certify', 'run', '--paso', '3', '--tenant', tenant.id]).out.note);

step('Paso 4: simulation');
const simulated = ecf(['certify', 'simulate', '--consumo-out', join(files, 'simulation-consumo'), '--tenant', tenant.id]).out;
const simulationConsumo = join(files, 'simulation-consumo');
let simulationUploads = [];
try {
  simulationUploads = readdirSync(simulationConsumo);
} catch {
  simulationUploads = [];
}
for (const name of simulationUploads) {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(simulationConsumo, name))], { type: 'text/xml' }), name);
  await portal(`the simulation's consumo upload ${name}`, '/consumo', { method: 'POST', body: form });
}
console.log(`simulation issued and accepted (${simulated?.issued ?? simulated?.counts ? 'see ecf certify status' : 'done'}); ${simulationUploads.length} consumo XMLs uploaded`);

step('Pasos 5 and 6: printed representations');
const pdfs = join(files, 'representaciones');
ecf(['certify', 'print', '--out', pdfs, '--tenant', tenant.id]);
console.log(`11 PDFs in ${pdfs}; the authority's reviewer approves them in the portal (Paso 6)`);
ecf(['certify', 'mark', '6', '--note', 'Representación Impresa Aprobada (demo)', '--tenant', tenant.id]);

step('Pasos 7 to 11: the receiver');
const check = ecf(['certify', 'receiver', '--url', receiverUrl, '--tenant', tenant.id]).out;
console.log(`receiver checked: ${check.ok ? 'every route answers as the authority expects' : JSON.stringify(check.checks)}`);
ecf(['certify', 'mark', '8', '--note', 'ENVIAR PRUEBA DE COMPROBANTES pressed (demo)', '--tenant', tenant.id]);
const paso9 = await portal('Paso 9', '/paso9', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiverUrl }) });
ecf(['certify', 'mark', '10', '--note', 'ENVIAR PRUEBA DE APROBACIONES COMERCIALES pressed (demo)', '--tenant', tenant.id]);
const paso11 = await portal('Paso 11', '/paso11', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiverUrl }) });
const arrivals = ecf(['certify', 'arrivals', '--tenant', tenant.id]).out;
console.log(`the authority's calls: Paso 9 ${JSON.stringify(paso9.report?.summary ?? paso9.report?.ok ?? '')}, Paso 11 ${JSON.stringify(paso11.report?.summary ?? paso11.report?.ok ?? '')}; the appliance saw ${arrivals?.ecf?.length ?? arrivals?.received?.length ?? '?'} e-CF and ${arrivals?.approvals?.length ?? '?'} approvals`);

step('Paso 12: production URLs (portal only)');
ecf(['certify', 'mark', '12', '--note', 'Production URLs confirmed (demo)', '--tenant', tenant.id]);

step('Paso 13: sign the sworn declaration the portal generates');
const declaration = join(files, 'declaracion-jurada.xml');
writeFileSync(declaration, `<?xml version="1.0" encoding="utf-8"?>\n<DeclaracionJurada>\n  <RNC>${RNC}</RNC>\n  <Acepta>true</Acepta>\n</DeclaracionJurada>\n`);
ecf(['certify', 'sign', declaration, '--paso', '13', '--tenant', tenant.id]);

step('Paso 14: the authority checks the taxpayer (portal only)');
ecf(['certify', 'mark', '14', '--note', 'Estatus verificado (demo)', '--tenant', tenant.id]);

step('Report');
const report = ecf(['certify', 'status', '--out', join(files, 'certification.txt'), '--tenant', tenant.id]).out;
for (const p of report.pasos) console.log(`${p.state === 'done' ? '[x]' : '[ ]'} Paso ${p.paso}: ${p.title}${p.note ? ` (${p.note})` : ''}`);
const open = report.pasos.filter((p) => p.state !== 'done');
if (open.length > 0) fail(`not every Paso is done: ${open.map((p) => `${p.paso} (${p.state}${p.note ? `: ${p.note}` : ''})`).join('; ')}`);
console.log(`\nAll 14 Pasos done. Report: ${join(files, 'certification.txt')}`);
process.exit(0);
