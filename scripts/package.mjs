#!/usr/bin/env node
// The self-contained directory build (`npm run package`): everything a machine
// needs to run `ecf`, with no Node.js installed there.
//
//   build/ecf-<version>-<platform>-<arch>/
//     bin/ecf, bin/ecf.cmd    launchers: the runtime below on app/bin/ecf.js
//     runtime/                the pinned Node.js, from the registry's node-<platform>-<arch> package
//     app/                    the compiled JavaScript (dist/, with the bundle `ecf` runs from),
//                             oclif.manifest.json, schemas/, package.json and the
//                             production node_modules, native SQLite addon included
//     installers/             the Linux and Windows service installers
//
// `ecf` runs from dist/bundle (scripts/bundle-cli.mjs), which keeps external the
// packages that find files beside themselves (libxml2's .wasm, the native addon,
// pino's transports), so those come in node_modules as npm installed them.
//
// Options: --out DIR; --runtime VERSION (default the pinned one, scripts/runtimes.mjs) or
// `current` (copy the Node.js running this script: for tests, which never reach the registry).
// The SQLite addon ships as `npm install` put it here (this platform's prebuilt file) and is
// loaded here first, so the runtime must be the same platform and the same major as the
// Node.js running this script (under `npm run package`, the one the install brought); when
// it is that very version, that binary is copied.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIME_PACKAGE, fetchRuntime, runtimeTarget, shippedRuntime } from './runtimes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const platform = process.platform === 'win32' ? 'win' : process.platform;
const target = runtimeTarget();
const out = resolve(option('--out') ?? join(root, 'build', `ecf-${pkg.version}-${target}`));

const fail = (message) => {
  console.error(`package: ${message}`);
  process.exit(1);
};
let runtime;
try {
  runtime = shippedRuntime(option('--runtime'));
} catch (error) {
  fail(error.message);
}
// The SQLite addon ships as installed here: it must load on this Node.js, whose major the runtime has.
try {
  createRequire(join(root, 'package.json'))('better-sqlite3')(':memory:').close();
} catch (error) {
  fail(`the SQLite addon in node_modules does not load on Node.js ${process.versions.node}: ${error.message.split('\n')[0]}`);
}
if (!existsSync(join(root, 'dist', 'bundle', 'ecf.js')) || !existsSync(join(root, 'oclif.manifest.json'))) fail('dist/ is missing; run `npm run build` first (npm run package does)');

rmSync(out, { recursive: true, force: true });
const app = join(out, 'app');
mkdirSync(app, { recursive: true });

// ---- the application ----
for (const part of ['dist', 'bin', 'schemas', 'dictionaries', 'oclif.manifest.json']) cpSync(join(root, part), join(app, part), { recursive: true });
const { devDependencies, scripts, ...shipped } = pkg;
void devDependencies;
void scripts;
writeFileSync(join(app, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
cpSync(join(root, 'installers'), join(out, 'installers'), { recursive: true });
cpSync(join(root, 'README.md'), join(out, 'README.md'));
// The README is the front door; its links lead into docs/.
cpSync(join(root, 'docs'), join(out, 'docs'), { recursive: true });

// ---- production node_modules, as installed here (the native addon already built) ----
const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  .split('\n')
  .map((p) => p.trim())
  .filter((p) => p && p !== root)
  .map((p) => relative(root, p))
  // The runtime the install brought ships once, as runtime/ below, not again as a package.
  .filter((p) => p !== join('node_modules', RUNTIME_PACKAGE))
  .sort();
const copied = [];
for (const path of listed) {
  // A package copied whole already holds its nested node_modules.
  if (copied.some((parent) => path.startsWith(parent + sep))) continue;
  cpSync(join(root, path), join(app, path), { recursive: true, dereference: true });
  copied.push(path);
}
// better-sqlite3's sources are only needed to build it, and of its prebuilt Node-API addons
// (one per platform) only this platform's load here.
const sqlite = join(app, 'node_modules', 'better-sqlite3');
for (const leftover of ['deps', 'src', 'build']) rmSync(join(sqlite, leftover), { recursive: true, force: true });
for (const prebuilt of readdirSync(join(sqlite, 'prebuilds'))) {
  if (!(prebuilt.startsWith(process.platform) && prebuilt.endsWith(`-${process.arch}.node`))) rmSync(join(sqlite, 'prebuilds', prebuilt));
}

// ---- the runtime ----
const runtimeDir = join(out, 'runtime');
mkdirSync(runtimeDir, { recursive: true });
const nodeName = platform === 'win' ? 'node.exe' : 'node';
if (runtime.source === 'copy') {
  cpSync(process.execPath, join(runtimeDir, nodeName));
} else {
  const work = mkdtempSync(join(tmpdir(), 'ecf-runtime-'));
  try {
    const fetched = fetchRuntime(runtime.version, work);
    const binary = [join(fetched, 'bin', nodeName), join(fetched, nodeName)].find((p) => existsSync(p));
    if (!binary) fail(`node-${target}@${runtime.version} holds no ${nodeName}`);
    cpSync(binary, join(runtimeDir, nodeName));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
chmodSync(join(runtimeDir, nodeName), 0o755);

// ---- launchers ----
mkdirSync(join(out, 'bin'), { recursive: true });
writeFileSync(
  join(out, 'bin', 'ecf'),
  '#!/bin/sh\n# ecf from this directory build: its own Node.js runtime on its own application.\nhere=$(dirname "$(readlink -f "$0")")\nexec "$here/../runtime/node" "$here/../app/bin/ecf.js" "$@"\n',
);
chmodSync(join(out, 'bin', 'ecf'), 0o755);
writeFileSync(join(out, 'bin', 'ecf.cmd'), '@echo off\r\n"%~dp0..\\runtime\\node.exe" "%~dp0..\\app\\bin\\ecf.js" %*\r\n');

const size = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? size(join(dir, e.name)) : e.isFile() ? statSync(join(dir, e.name)).size : 0), 0);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `${out}: ${mib(size(out))} (runtime ${mib(size(runtimeDir))}, node_modules ${mib(size(join(app, 'node_modules')))}, application ${mib(size(join(app, 'dist')) + size(join(app, 'schemas')) + size(join(app, 'dictionaries')))})`,
);
