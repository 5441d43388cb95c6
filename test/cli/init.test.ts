import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askSetup } from '../../src/cli/init-wizard.js';
import { openEngine } from '../../src/engine/engine.js';
import { firstRunSetup } from '../../src/engine/setup/first-run.js';
import { listCertificates } from '../../src/engine/certificates/certificates.js';
import { listRanges } from '../../src/engine/sequences/ranges.js';
import { authenticate } from '../../src/engine/tenants/api-keys.js';
import { listTenants } from '../../src/engine/tenants/tenants.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { BIN, cliFor } from '../cli-runner.js';
import { tempDir, testEngine } from '../helpers.js';

/**
 * `ecf init`: the wizard driven through injected streams (what a person
 * types, answered as each question appears), and the built CLI without a
 * terminal: refused without --yes, `--yes` alone as installers run it, and
 * `--yes` with flags setting up a tenant.
 */

const ENTER = '\r';
const DOWN = '\x1b[B';
const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** A terminal stand-in: answers each question once it has been drawn. */
function terminal() {
  const input = new PassThrough();
  let screen = '';
  let seen = 0;
  const output = new Writable({
    write(chunk, _enc, done) {
      screen += strip(chunk.toString());
      done();
    },
  });
  // Each prompt pipes into the output and ends the pipe when it closes; a terminal is never ended.
  output.end = (() => output) as typeof output.end;
  async function answer(question: string, keys: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const at = screen.indexOf(question, seen);
      if (at >= 0) {
        seen = at + question.length;
        break;
      }
      if (Date.now() > deadline) throw new Error(`"${question}" never asked; the screen:\n${screen.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 10));
    input.write(keys);
  }
  return { input, output, answer, screen: () => screen };
}

function certificateFile(rnc: string, password: string): string {
  const file = join(tempDir('ecf-init-cert-'), 'firma.p12');
  writeFileSync(file, makeP12(makeIdentity({ serialNumber: `IDCDO-${rnc}` }), password));
  return file;
}

describe('ecf init wizard', () => {
  it('asks each step, re-asks a bad RNC and a wrong password, and the answers set up a tenant ready to issue', async () => {
    const t = terminal();
    const cert = certificateFile('131234567', 'clave-ñ');
    const dataDir = join(tempDir('ecf-init-wizard-'), 'datos');
    const asked = askSetup({ dataDir: '/nowhere' }, { input: t.input, output: t.output });
    await t.answer('Data directory', '\x15' + dataDir + ENTER); // Ctrl-U clears the default first
    await t.answer('Group the tenant in an organization', 'y' + ENTER);
    await t.answer('Organization name', 'Contadores Unidos' + ENTER);
    await t.answer("Owner's name", 'Ana Pérez' + ENTER);
    await t.answer('Plan', DOWN + ENTER); // office
    await t.answer('Tenant RNC', '12345' + ENTER);
    await t.answer('The RNC must be an RNC of 9 digits', '\x15' + '131234567' + ENTER);
    await t.answer('Legal name', 'Ferretería Ñoño SRL' + ENTER);
    await t.answer('Trade name', ENTER);
    await t.answer('Environment', DOWN + ENTER); // cert
    await t.answer('Signing certificate file', cert + ENTER);
    await t.answer('Certificate password', 'mala' + ENTER);
    await t.answer('Certificate.', '\x15' + 'clave-ñ' + ENTER); // the refusal names its code; then the right one
    await t.answer('Add an authorized e-NCF range now?', ENTER); // default yes
    await t.answer('e-CF type', ENTER); // 31
    await t.answer('First number', ENTER); // default 1
    await t.answer('Last number', '5000' + ENTER);
    await t.answer('Expires on', '2035-12-31' + ENTER);
    await t.answer('Add another range?', 'y' + ENTER);
    await t.answer('e-CF type', DOWN + ENTER); // 32
    await t.answer('First number', ENTER);
    await t.answer('Last number', '20000' + ENTER);
    await t.answer('Add another range?', ENTER); // default no
    await t.answer('Start the server now', ENTER); // default no
    const answers = await asked;

    expect(answers.dataDir).toBe(dataDir);
    expect(answers.startSandbox).toBe(false);
    expect(answers.setup).toMatchObject({
      organization: { name: 'Contadores Unidos', ownerName: 'Ana Pérez', plan: 'office' },
      tenant: { rnc: '131234567', legalName: 'Ferretería Ñoño SRL', tradeName: null },
      environment: 'cert',
      certificate: { password: 'clave-ñ' },
      ranges: [
        { type: 31, from: 1, to: 5000, expiresOn: '2035-12-31' },
        { type: 32, from: 1, to: 20000, expiresOn: null },
      ],
    });
    expect(t.screen()).not.toContain('clave-ñ'); // the password is never echoed

    const engine = await testEngine();
    const outcome = await firstRunSetup(engine, answers.setup);
    expect(outcome.tenantCreated).toBe(true);
    expect(outcome.organization).toMatchObject({ name: 'Contadores Unidos', plan: 'office' });
    expect(outcome.tenant).toMatchObject({ rnc: '131234567', defaultEnvironment: 'cert', organizationId: outcome.organization!.id });
    expect(await listCertificates(engine, outcome.tenant.id)).toHaveLength(1);
    expect((await listRanges(engine, outcome.tenant.id)).map((r) => [r.environment, r.type, r.rangeTo])).toEqual([
      ['cert', 31, 5000],
      ['cert', 32, 20000],
    ]);
    expect(await authenticate(engine, outcome.apiKey.key)).toMatchObject({ tenantId: outcome.tenant.id, role: 'admin_tenant' });
  });

  it('skips the organization, the certificate and the ranges when answered so', async () => {
    const t = terminal();
    const asked = askSetup({ dataDir: '/var/lib/ecf' }, { input: t.input, output: t.output });
    await t.answer('Data directory', ENTER);
    await t.answer('Group the tenant in an organization', ENTER);
    await t.answer('Tenant RNC', '00112345678' + ENTER);
    await t.answer('Legal name', 'Ana Pérez' + ENTER);
    await t.answer('Trade name', 'Colmado Ana' + ENTER);
    await t.answer('Environment', ENTER);
    await t.answer('Signing certificate file', ENTER);
    await t.answer('Add an authorized e-NCF range now?', 'n' + ENTER);
    await t.answer('Start the server now', 'y' + ENTER);
    const answers = await asked;
    expect(answers).toEqual({
      dataDir: '/var/lib/ecf',
      startSandbox: true,
      setup: {
        organization: undefined,
        tenant: { rnc: '00112345678', legalName: 'Ana Pérez', tradeName: 'Colmado Ana' },
        environment: 'test',
        certificate: undefined,
        ranges: [],
      },
    });
  });
});

/** util-linux `script` gives the child a pseudo-terminal; where it is missing the test below cannot run. */
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('ecf init on a pseudo-terminal', () => {
  it.skipIf(!hasScript)('the built CLI asks on the terminal, sets up the tenant and prints the key once', { timeout: 120_000 }, async () => {
    const dataDir = join(tempDir('ecf-init-pty-'), 'datos');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TERM: 'xterm' };
    for (const k of Object.keys(env)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete env[k];
    const child = spawn('script', ['-qfec', `'${process.execPath}' '${BIN}' init --data-dir '${dataDir}'`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let seen = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += strip(d)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += strip(d)));
    const closed = new Promise<number>((r) => child.on('close', (code) => r(code ?? -1)));
    const answer = async (question: string, keys: string) => {
      const deadline = Date.now() + 60_000;
      while (screen.indexOf(question, seen) < 0) {
        if (Date.now() > deadline) throw new Error(`"${question}" never asked; the screen:\n${screen.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      seen = screen.indexOf(question, seen) + question.length;
      await new Promise((r) => setTimeout(r, 50));
      child.stdin.write(keys);
    };
    try {
      await answer('Data directory', ENTER);
      await answer('Group the tenant in an organization', ENTER);
      await answer('Tenant RNC', '131234567' + ENTER);
      await answer('Legal name', 'Ferretería Ñoño SRL' + ENTER);
      await answer('Trade name', ENTER);
      await answer('Environment', ENTER);
      await answer('Signing certificate file', ENTER);
      await answer('Add an authorized e-NCF range now?', 'y' + ENTER);
      await answer('e-CF type', ENTER);
      await answer('First number', ENTER);
      await answer('Last number', '100' + ENTER);
      await answer('Expires on', '2035-12-31' + ENTER);
      await answer('Add another range?', ENTER);
      await answer('Start the server now', ENTER);
      expect(await closed).toBe(0);
    } finally {
      child.kill();
    }
    expect(screen).toMatch(/API key \(admin_tenant\), shown only now[^\n]*\s+ecf_[0-9a-f]{12}_\S+/);
    const engine = await openEngine({ dataDir });
    try {
      const [tenant] = await listTenants(engine);
      expect(tenant).toMatchObject({ rnc: '131234567', legalName: 'Ferretería Ñoño SRL', defaultEnvironment: 'test' });
      expect((await listRanges(engine, tenant!.id)).map((r) => [r.type, r.rangeFrom, r.rangeTo, r.expiresOn])).toEqual([[31, 1, 100, '2035-12-31']]);
    } finally {
      await engine.close();
    }
  });
});

describe('ecf init without a terminal', () => {
  it('refuses to wait for answers without --yes, and creates nothing', async () => {
    const dataDir = join(tempDir('ecf-init-'), 'datos');
    const { ecf } = cliFor(dataDir);
    const r = await ecf(['init']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error [Init.NeedsTerminal]');
    expect(r.stderr).toContain('--yes');
    expect(existsSync(dataDir)).toBe(false);
    const flagsOnly = await ecf(['init', '--rnc', '131234567']);
    expect(flagsOnly.code).toBe(2);
    expect(flagsOnly.stderr).toContain('Error [Init.FlagsNeedYes]');
  });

  it('--yes alone prepares the data directory only, as before; --yes with flags sets up the tenant, again without duplicates', async () => {
    const dataDir = join(tempDir('ecf-init-'), 'datos');
    const { json, ecf } = cliFor(dataDir);
    const plain = await json(['init', '--yes']);
    expect(plain).toMatchObject({ dataDir, databaseCreated: true, secretStoreKeyCreated: true });
    expect(plain.setup).toBeUndefined();

    const cert = certificateFile('131234567', 'clave-ñ');
    const args = [
      'init', '--yes', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL', '--org-name', 'Contadores Unidos', '--plan', 'office',
      '--cert', cert, '--cert-password-stdin', '--range', '31:1-10000@2035-12-31', '--range', '32:1-50000',
    ];
    const first = await json(args, 'clave-ñ\n');
    expect(first).toMatchObject({ databaseCreated: false, setup: { tenantCreated: true, tenant: { rnc: '131234567', defaultEnvironment: 'test' } } });
    expect(first.setup.organization).toMatchObject({ name: 'Contadores Unidos', plan: 'office' });
    expect(first.setup.ranges.map((r: { type: number }) => r.type)).toEqual([31, 32]);
    expect(first.setup.apiKey.key).toMatch(/^ecf_[0-9a-f]{12}_/);

    const again = await json(args, 'clave-ñ\n');
    expect(again.setup).toMatchObject({ tenantCreated: false, tenant: { id: first.setup.tenant.id }, certificate: { id: first.setup.certificate.id } });
    expect(again.setup.ranges.map((r: { id: string }) => r.id)).toEqual(first.setup.ranges.map((r: { id: string }) => r.id));

    const engine = await openEngine({ dataDir });
    try {
      expect(await listTenants(engine)).toHaveLength(1);
      expect(await authenticate(engine, first.setup.apiKey.key)).toMatchObject({ tenantId: first.setup.tenant.id });
    } finally {
      await engine.close();
    }

    // People get the key once, in words.
    const human = await ecf(['init', '--yes', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL', '--org-name', 'Contadores Unidos']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/API key \(admin_tenant\), shown only now[^\n]*\n\s+ecf_[0-9a-f]{12}_\S+/);

    const bad = await ecf(['init', '--yes', '--legal-name', 'X', '--range', '31:1-10', '--cert', cert]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rnc: is required');
    expect(bad.stderr).toContain('range[0].expiresOn');
    expect(bad.stderr).toContain('certPassword: is required');
  });
});
