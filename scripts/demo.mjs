// The demo, run through `npm run demo` (which builds first). On a fresh machine it:
//   1. prepares the data directory ./.data/demo (or $ECF_DATA_DIR) with `ecf init`;
//   2. creates the demo tenant (RNC 130000001) with its organization and emitter profile, if missing;
//   3. if the tenant has no active signing certificate, makes a test one now (RSA 2048, one year,
//      subject serialNumber IDCDO-<RNC>) with the openssl command, or with node-forge when openssl
//      is missing, and imports it with `ecf cert import --password-stdin`;
//   4. loads e-NCF ranges for types 31 and 32 in the test environment, if there are none;
//   5. issues examples/invoice-31.json with `ecf issue` and prints its e-NCF, security code, QR URL
//      and the commands that get its signed XML and its printed representation (PDF);
//   6. starts `ecf serve --sandbox` (API, background jobs and the built-in tax authority sandbox),
//      whose jobs submit the e-CF, and prints the sandbox's verdict;
//   7. keeps serving the API on $PORT (default 8787) with a fresh admin key, until Ctrl-C; with
//      --no-serve (or DEMO_NO_SERVE=1) it stops the server and exits 0 instead.
// Running it again reuses everything: `ecf issue` keys each file by its SHA-256, so the same file
// gives back the same e-CF instead of a second one.
import { spawn } from 'node:child_process';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ecfRunner, fail, setupTenant } from './demo-kit.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'ecf.js');
const dataDir = process.env.ECF_DATA_DIR || join(root, '.data', 'demo');
const port = process.env.PORT ?? '8787';
const serve = !(process.argv.includes('--no-serve') || process.env.DEMO_NO_SERVE === '1');
const RNC = '130000001';
const ENVIRONMENT = 'test';
const example = join(root, 'examples', 'invoice-31.json');

/** A path as the person running the demo would type it from the repository. */
const shown = (path) => {
  const rel = relative(root, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
};
// Run through npm, the demo is on the Node.js the install brought (node_modules/.bin/node), which
// the SQLite addon is built for; the machine's own `node` may be another, so the commands say npx.
const ecfShell = `${relative(root, process.execPath).startsWith('node_modules') ? 'npx node' : 'node'} ${shown(bin)}`;
const dataDirFlag = `--data-dir ${shown(dataDir)}`;

const ecf = ecfRunner(bin, dataDir);

const tenant = await setupTenant(ecf, { rnc: RNC, legalName: 'Demo Ferretería Ñoño SRL', tradeName: 'Ferretería Ñoño', dataDir });

// 4. e-NCF ranges for types 31 and 32.
const ranges = ecf(['sequence', 'list', '--tenant', tenant.id]).out;
const nextYearEnd = `${new Date().getFullYear() + 1}-12-31`;
for (const type of [31, 32]) {
  if (ranges.some((r) => r.environment === ENVIRONMENT && r.type === type)) continue;
  const expires = type === 32 ? [] : ['--expires', nextYearEnd];
  const range = ecf(['sequence', 'add', '--tenant', tenant.id, '--env', ENVIRONMENT, '--type', String(type), '--from', '1', '--to', '100000', ...expires]).out;
  console.log(`Loaded e-NCF range ${range.rangeFrom}–${range.rangeTo} of type ${type} in ${ENVIRONMENT}${range.expiresOn ? `, expiring ${range.expiresOn}` : ''}`);
}

// 5. Issue the example invoice.
const { out: report } = ecf(['issue', example, '--tenant', tenant.id, '--env', ENVIRONMENT], { allowFailure: true });
const result = report?.results?.[0];
if (!result) fail(`\`ecf issue ${shown(example)}\` gave no report`);
if (!result.ok) {
  const { error } = result;
  fail([`${shown(example)} was not issued: Error [${error.code}]: ${error.message}`, ...(error.errors ?? []).map((e) => `  ${e.path}: ${e.message} (${e.code})`)].join('\n'));
}
const { ecf: issued } = result;
console.log('');
console.log(
  result.created
    ? `Issued ${issued.encf} (${issued.status}) from ${shown(example)}`
    : `${shown(example)} had already issued ${issued.encf} (${issued.status}); the same file gives back the same e-CF`,
);
console.log(`  e-NCF          ${issued.encf}`);
console.log(`  security code  ${issued.securityCode}`);
console.log(`  QR URL         ${issued.qrUrl}`);
console.log(`  signed XML     ${ecfShell} xml ${issued.encf} ${dataDirFlag} -o ${issued.encf}.xml`);
console.log(`  PDF            ${ecfShell} pdf ${issued.encf} ${dataDirFlag} [--layout pos]`);
console.log(`  details        ${ecfShell} show ${issued.encf} ${dataDirFlag}`);

// 6. Submit it: `ecf serve --sandbox` runs the API, the background jobs and the built-in tax
//    authority sandbox; the jobs send the signed XML and follow its status until the verdict.
const server = spawn(process.execPath, [bin, 'serve', '--sandbox', '--port', serve ? port : '0', '--data-dir', dataDir, '--log-level', 'warn'], {
  stdio: serve ? 'inherit' : ['ignore', 'ignore', 'inherit'],
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
let verdict = issued;
for (let i = 0; i < 120 && verdict.status === 'signed'; i++) {
  await new Promise((r) => setTimeout(r, 500));
  verdict = ecf(['status', issued.encf, '--tenant', tenant.id]).out;
}
console.log('');
if (verdict.status === 'signed') {
  console.log(`${issued.encf} is still waiting for the sandbox's verdict; see ${ecfShell} attempts ${issued.encf} ${dataDirFlag}`);
} else {
  const t = verdict.taxauth ?? {};
  console.log(`Sent to the built-in tax authority sandbox: ${issued.encf} is ${verdict.status} (${t.statusCode} ${t.status}), trackId ${t.trackId ?? '-'}`);
  console.log(`  history        ${ecfShell} attempts ${issued.encf} ${dataDirFlag}`);
}

// 7. Keep serving the API, unless told not to (then the demo ends here, with exit code 0).
if (serve) {
  const { key } = ecf(['key', 'create', '--tenant', tenant.id, '--role', 'admin_tenant', '--name', 'demo']).out;
  console.log('');
  console.log(`Admin key (shown once): ${key}`);
  console.log(`Try: curl -H 'X-API-Key: ${key}' http://127.0.0.1:${port}/api/v1/ecf/${issued.id}`);
  console.log(`     curl -H 'X-API-Key: ${key}' http://127.0.0.1:${port}/api/v1/ecf/${issued.id}/xml`);
  console.log(`     curl -H 'X-API-Key: ${key}' -o ${issued.encf}.pdf http://127.0.0.1:${port}/api/v1/ecf/${issued.id}/representation`);
  server.on('exit', (code) => process.exit(code ?? 0));
} else {
  server.kill('SIGTERM');
  server.on('exit', () => process.exit(0));
}
