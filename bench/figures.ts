import { appendFileSync } from 'node:fs';

/**
 * A headline figure of a bench, for bench/run.mjs to put beside the same figure measured on
 * the other Node runtime (BENCH_FIGURES names the file it collects them in; without it,
 * nothing is written). `higher` says which way is better, so the ratio reads one way.
 */
export function figure(name: string, value: number, unit: string, better: 'higher' | 'lower'): void {
  const file = process.env.BENCH_FIGURES;
  if (file && Number.isFinite(value)) appendFileSync(file, JSON.stringify({ name, value, unit, better }) + '\n');
}
