// The journal's cost on issuing over HTTP: two servers (bench/issue-server.ts, each in its own
// process with its own store), one writing the journal as `ecf serve` does and one with the
// journal switched off (BENCH_JOURNAL=0), loaded in turn with the same 16 clients for several
// rounds, so both see the same machine. Prints e-CF/s and server CPU per e-CF of each, and
// the ratio with/without (target: the journal loses at most 5 %, ratio >= 0.95).
// Environment: BENCH_SECONDS (per round, default 3), BENCH_ROUNDS (default 4), BENCH_CLIENTS (default 16).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, type Target } from './http-load.js';
import { figure } from './figures.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const clients = Number(process.env.BENCH_CLIENTS ?? 16);

interface Server {
  readonly label: string;
  readonly child: ChildProcess;
  readonly target: Target;
  ok: number;
  elapsed: number;
  cpuMs: number;
  errors: number;
}

const temporary: string[] = [];
process.on('exit', () => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

async function start(label: string, journal: boolean): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-journal-'));
  temporary.push(dataDir);
  const child = fork(join(root, 'bench', 'issue-server.ts'), [dataDir], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
    env: { ...process.env, BENCH_JOURNAL: journal ? '1' : '0' },
  });
  const ready = await new Promise<{ port: number; key: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; key: string }));
    child.once('exit', (code) => reject(new Error(`issue-server exited with ${code} before listening`)));
  });
  return { label, child, target: { port: ready.port, key: ready.key }, ok: 0, elapsed: 0, cpuMs: 0, errors: 0 };
}

const cpuOf = (s: Server) =>
  new Promise<number>((resolve) => {
    s.child.once('message', (m) => {
      const { cpu } = m as { cpu: NodeJS.CpuUsage };
      resolve((cpu.user + cpu.system) / 1000);
    });
    s.child.send('cpu');
  });

const withJournal = await start('journal   ', true);
const without = await start('no journal', false);
const servers = [withJournal, without];
for (const s of servers) await load([s.target], 4, 1000); // warm-up

for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so neither always follows the other's checkpoint.
  for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
    const cpu0 = await cpuOf(s);
    const r = await load([s.target], clients, seconds * 1000);
    s.cpuMs += (await cpuOf(s)) - cpu0;
    s.ok += r.latencies.length;
    s.elapsed += r.elapsed;
    s.errors += [...r.failures.values()].reduce((a, b) => a + b, 0);
  }
}

console.log(`issuing over HTTP, ${clients} clients, ${rounds} rounds of ${seconds} s per server, alternating`);
for (const s of servers) {
  console.log(`${s.label}  ${(s.ok / s.elapsed).toFixed(0).padStart(6)} e-CF/s   server CPU ${(s.cpuMs / s.ok).toFixed(3)} ms per e-CF   201: ${s.ok}, errors: ${s.errors}`);
}
const ratio = withJournal.ok / withJournal.elapsed / (without.ok / without.elapsed);
const cpuRatio = without.cpuMs / without.ok / (withJournal.cpuMs / withJournal.ok);
console.log(`ratio with/without: throughput ${ratio.toFixed(3)}, CPU per e-CF ${cpuRatio.toFixed(3)} (target >= 0.95: ${ratio >= 0.95 ? 'ok' : 'MISSED'})`);
figure('journal: issue-http ratio with/without', ratio, 'x', 'higher');
for (const s of servers) s.child.send('close');
await Promise.all(servers.map((s) => new Promise((resolve) => s.child.once('exit', resolve))));
