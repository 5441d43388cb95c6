// Runs every bench/*.bench.ts file in its own process and prints what each measured.
// Benchmarks print ratios measured within one run, so they compare across machines.
//
// The runtime benches (startup, drain, issuing over HTTP, signing) run on Node 24 and on
// Node 22, the supported pair, in the same run, and their headline figures (bench/figures.ts)
// are put side by side with the ratio of the two. The runtimes come from BENCH_NODE_24 and
// BENCH_NODE_22, else the running node for its own major, else the registry's build of the
// version package.json pins (bench/runtimes.mjs); both load the shared node_modules.
// `node bench/run.mjs signing startup` runs only the benches whose names contain those words;
// BENCH_COMPARE=0 runs everything on the running node only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { comparedMajors, comparedVersions, runtime } from './runtimes.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((w) => f.includes(w))))
  .sort();
if (files.length === 0) console.log('no benchmarks yet');

/** The benches compared across runtimes: what the runtime itself changes. */
const COMPARED = ['startup.bench.ts', 'drain.bench.ts', 'issue-http.bench.ts', 'signing.bench.ts'];
/** [24, 22]: package.json's pinned runtimes (Node 20 cannot run the engine since issue 34). */
const MAJORS = comparedMajors();
const compare = process.env.BENCH_COMPARE !== '0' && files.some((f) => COMPARED.includes(f));
const runtimes = compare ? comparedVersions().map((version, i) => ({ major: MAJORS[i], node: runtime(version), env: process.env })) : [];

const work = mkdtempSync(join(tmpdir(), 'ecf-bench-figures-'));
/** figures[name][major] = { value, unit, better } */
const figures = new Map();
try {
  for (const f of files) {
    const on = compare && COMPARED.includes(f) ? runtimes : [{ major: undefined, node: process.execPath, env: process.env }];
    for (const { major, node, env } of on) {
      console.log(major ? `# ${f} on Node ${major} (${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()})` : `# ${f}`);
      const out = join(work, `${f}-${major}.jsonl`);
      execFileSync(node, ['--import', 'tsx', `${dir}${f}`], { stdio: 'inherit', env: { ...env, BENCH_FIGURES: out } });
      if (!major) continue;
      let lines = [];
      try {
        lines = readFileSync(out, 'utf8').trim().split('\n').filter(Boolean);
      } catch {
        // the bench printed no figures (skipped)
      }
      for (const line of lines) {
        const { name, value, unit, better } = JSON.parse(line);
        if (!figures.has(name)) figures.set(name, { unit, better, by: {} });
        figures.get(name).by[major] = value;
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (figures.size > 0) {
  const [a, b] = MAJORS;
  const num = (v) => (v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(2));
  console.log(`\n# Node ${a} against Node ${b}, same run (ratio ${a} ÷ ${b}; "better" says which way is better)`);
  console.log(`${'figure'.padEnd(58)} ${`Node ${a}`.padStart(10)} ${`Node ${b}`.padStart(10)}  unit      ratio`);
  for (const [name, { unit, better, by }] of figures) {
    const ratio = by[a] !== undefined && by[b] ? (by[a] / by[b]).toFixed(2) : '-';
    console.log(`${name.padEnd(58)} ${num(by[a]).padStart(10)} ${num(by[b]).padStart(10)}  ${unit.padEnd(8)} ${ratio.padStart(6)} (${better} is better)`);
  }
}
