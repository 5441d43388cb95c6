// The two Node runtimes `npm run bench` compares: the pinned ones of package.json, Node 24 (the one
// the install brings and the appliance ships) and Node 22 (`runtimes.smoke`, CI's smoke), the
// supported pair. Bench-only: product code never loads this.
//
// A runtime comes from BENCH_NODE_24 / BENCH_NODE_22 (a node binary), else the running node when
// its major matches, else the pinned version's official build from the registry, unpacked once
// into .cache/runtimes/ by scripts/runtimes.mjs (the fetch .ci/run's smoke uses). The project's
// better-sqlite3 (13) is Node-API and prebuilt, so the shared node_modules serves both.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchRuntime, pinnedRuntimes } from '../scripts/runtimes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

const majorOf = (version) => Number(version.replace(/^v/, '').split('.')[0]);

/** The versions compared, newer first: package.json's pinned ship (24) and smoke (22). */
export function comparedVersions() {
  const { ship, smoke } = pinnedRuntimes();
  return [ship, smoke];
}

/** The majors compared, newer first (24, 22). */
export const comparedMajors = () => comparedVersions().map(majorOf);

/** The node binary for the pinned `version`: BENCH_NODE_<major>, this node, or a fetched one. */
export function runtime(version) {
  const major = majorOf(version);
  const fromEnv = process.env[`BENCH_NODE_${major}`];
  if (fromEnv) {
    // A wrong binary would put another runtime's figures under this major's name.
    const actual = execFileSync(fromEnv, ['--version'], { encoding: 'utf8' }).trim();
    if (majorOf(actual) !== major) throw new Error(`BENCH_NODE_${major}=${fromEnv} is Node ${actual}, not Node ${major}`);
    return fromEnv;
  }
  if (majorOf(process.versions.node) === major) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`no Node ${major} here: set BENCH_NODE_${major} to a node binary`);
  const into = join(root, '.cache', 'runtimes');
  console.log(`# Node ${major}: the registry's official build of Node ${version} in ${into}`);
  return join(fetchRuntime(version, into), 'bin', 'node');
}
