// What the demos share (scripts/demo.mjs, scripts/certify-demo.mjs): running the built `ecf` with
// --json over one data directory, and a tenant with a test signing certificate made on the spot.
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function fail(message, code = 1) {
  console.error(`demo: ${message}`);
  process.exit(code);
}

/**
 * `ecf(args, { input, allowFailure })` runs `ecf <args> --data-dir <dir> --json` and returns its
 * exit status and parsed output. A failure ends the demo with the command's error, unless
 * `allowFailure`. `env` is added to the command's environment.
 */
export function ecfRunner(bin, dataDir, env = {}) {
  return function ecf(args, { input, allowFailure = false } = {}) {
    const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], {
      encoding: 'utf8',
      input: input ?? '',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...env },
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
  };
}

/** A test signing certificate for the RNC as a .p12 file, made with the openssl command or, without it, node-forge. */
export async function makeTestP12(dir, rnc, password) {
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


/**
 * The data directory (`ecf init`), a tenant with its organization and emitter profile, and an
 * active test signing certificate, each made only when missing.
 */
export async function setupTenant(ecf, { rnc, legalName, tradeName, dataDir }) {
  // 1. The data directory.
  ecf(['init', '--yes']);

  // 2. The demo tenant.
  let tenant = ecf(['tenant', 'list']).out.find((t) => t.rnc === rnc);
  if (!tenant) {
    const { organization } = ecf(['org', 'create', '--name', 'Demo Contadores', '--plan', 'office', '--owner-name', 'Demo Owner']).out;
    tenant = ecf(['tenant', 'create', '--rnc', rnc, '--legal-name', legalName, '--trade-name', tradeName, '--org', organization.id]).out;
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
  return tenant;
}
