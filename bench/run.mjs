// Runs every bench/*.bench.ts file in its own process and prints what each measured.
// Benchmarks print ratios measured within one run, so they compare across machines.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();
if (files.length === 0) console.log('no benchmarks yet');
for (const f of files) {
  console.log(`# ${f}`);
  execFileSync(process.execPath, ['--import', 'tsx', `${dir}${f}`], { stdio: 'inherit' });
}
