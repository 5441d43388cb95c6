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
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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
const ecfShell = `node ${shown(bin)}`;
const dataDirFlag = `--data-dir ${shown(dataDir)}`;

function fail(message, code = 1) {
  console.error(`demo: ${message}`);
  process.exit(code);
}

/**
 * Runs `ecf <args> --data-dir <dir> --json` and returns its exit status and parsed output.
 * A failure ends the demo with the command's error, unless `allowFailure`.
 */
function ecf(args, { input, allowFailure = false } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], {
    encoding: 'utf8',
    input: input ?? '',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) fail(`cannot run ecf ${args[0]}: ${r.error.message}`);
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    out = undefined;
  }
  if (r.status !== 0 && !allowFailure) {
    const error = out?.error;
    const details = error
      ? [`Error [${error.code}]: ${error.message}`, ...(error.errors ?? []).map((e) => `  ${e.path}: ${e.message} (${e.code})`)]
      : [r.stderr.trim() || r.stdout.trim()];
    fail(`\`ecf ${args.join(' ')}\` failed (exit ${r.status}):\n${details.join('\n')}`, r.status || 1);
  }
  return { status: r.status, out };
}

/** A test signing certificate for the RNC as a .p12 file, made with the openssl command or, without it, node-forge. */
async function makeTestP12(dir, rnc, password) {
  const key = join(dir, 'demo-key.pem');
  const cert = join(dir, 'demo-cert.pem');
  const p12 = join(dir, 'demo.p12');
  // The password reaches openssl through its environment, never its argument list.
  const env = { ...process.env, DEMO_P12_PASSWORD: password };
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-sha256', '-nodes', '-days', '365',
        '-keyout', key, '-out', cert, '-subj', `/CN=DEMO FIRMA ${rnc}/serialNumber=IDCDO-${rnc}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12, '-passout', 'env:DEMO_P12_PASSWORD'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return { file: p12, maker: 'openssl' };
  } catch (err) {
    if (err.code !== 'ENOENT') fail(`openssl could not make the test certificate: ${err.stderr?.toString().trim() || err.message}`);
  }
  const { default: forge } = await import('node-forge');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  const now = Date.now();
  certificate.validity.notBefore = new Date(now - 60_000);
  certificate.validity.notAfter = new Date(now + 365 * 24 * 60 * 60 * 1000);
  const subject = [{ name: 'commonName', value: `DEMO FIRMA ${rnc}` }, { type: '2.5.4.5', value: `IDCDO-${rnc}` }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.sign(forgeKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(forgeKey, [certificate], password, { algorithm: '3des' });
  writeFileSync(p12, Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), { mode: 0o600 });
  return { file: p12, maker: 'node-forge' };
}

// 1. The data directory.
ecf(['init', '--yes']);

// 2. The demo tenant.
let tenant = ecf(['tenant', 'list']).out.find((t) => t.rnc === RNC);
if (!tenant) {
  const { organization } = ecf(['org', 'create', '--name', 'Demo Contadores', '--plan', 'office', '--owner-name', 'Demo Owner']).out;
  tenant = ecf(['tenant', 'create', '--rnc', RNC, '--legal-name', 'Demo Ferretería Ñoño SRL', '--trade-name', 'Ferretería Ñoño', '--org', organization.id]).out;
  ecf(['tenant', 'profile', tenant.id, '--address', 'Calle El Conde 12', '--municipality', '010100', '--province', '010000', '--phone', '809-555-1234']);
}
console.log(`Demo tenant ${tenant.legalName} (RNC ${tenant.rnc}), data in ${dataDir}`);

// 3. A signing certificate.
const certificates = ecf(['cert', 'list', '--tenant', tenant.id]).out;
if (!certificates.some((c) => c.status === 'active')) {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-demo-cert-'));
  try {
    const password = randomBytes(18).toString('base64url');
    const { file, maker } = await makeTestP12(dir, tenant.rnc, password);
    const imported = ecf(['cert', 'import', file, '--tenant', tenant.id, '--password-stdin'], { input: password }).out;
    console.log(`Test signing certificate made with ${maker} and imported: ${imported.subject.text}, valid to ${imported.notAfter}`);
  } finally {
    // The secret store keeps the .p12 and its password now; the working copies go.
    rmSync(dir, { recursive: true, force: true });
  }
}

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
