// PostgreSQL's plans of the list: runs listEcf once per query given (the contract's parameters as
// JSON) on a kept store, records every statement it sends (text and parameters, as node-postgres
// gets them from kysely) and prints EXPLAIN (ANALYZE, BUFFERS) of each, with the same parameters
// (an unnamed statement, so a custom plan, as the engine gets). The store is the first tenant of the
// database at ECF_BENCH_DB, e.g. the one list-million.bench.ts keeps with BENCH_PG_REUSE=1:
//   ECF_BENCH_DB=postgres://postgres@127.0.0.1:<port>/ecf_bench_list_1000000 \
//     node_modules/.bin/node --import tsx bench/explain-list-pg.ts '{"Search":"E31000001"}' '{"From":"2026-01-15"}'
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEngine } from '../src/engine/engine.js';
import { listEcf } from '../src/engine/ecf/queries.js';

const captured: { text: string; values: unknown[] }[] = [];
let capture = false;
const original = pg.Client.prototype.query;
(pg.Client.prototype as any).query = function (this: any, config: any, values?: any, cb?: any) {
  if (capture && typeof config === 'string') captured.push({ text: config, values: values ?? [] });
  else if (capture && config && typeof config.text === 'string') captured.push({ text: config.text, values: config.values ?? [] });
  return (original as any).call(this, config, values, cb);
};

const url = process.env.ECF_BENCH_DB;
if (!url) throw new Error('ECF_BENCH_DB: the PostgreSQL URL of a loaded store');
const dataDir = mkdtempSync(join(tmpdir(), 'explain-'));
writeFileSync(join(dataDir, 'database-url'), `${url}\n`);
const engine = await openEngine({ dataDir });
const { id: tenantId } = await engine.db.selectFrom('tenants').select('id').orderBy('created_at').executeTakeFirstOrThrow();
const client = new pg.Client({ connectionString: url });
await client.connect();
for (const arg of process.argv.slice(2)) {
  const q = JSON.parse(arg);
  await listEcf(engine, tenantId, q);
  captured.length = 0;
  capture = true;
  const t = performance.now();
  const page = await listEcf(engine, tenantId, q);
  const ms = performance.now() - t;
  capture = false;
  console.log(`\n===== ${arg}: ${ms.toFixed(1)} ms, total ${page.totalCount}, ${page.items.length} items`);
  for (const c of captured) {
    if (/^(begin|commit|rollback)/i.test(c.text)) continue;
    const plan = await client.query(`explain (analyze, buffers) ${c.text}`, c.values as any[]);
    console.log(`--- ${c.text}\n    ${JSON.stringify(c.values)}`);
    for (const r of plan.rows) console.log('  ' + r['QUERY PLAN']);
  }
}
await client.end();
await engine.close();
