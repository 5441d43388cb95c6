// The server side of bench/issue-http.bench.ts, forked as its own process so the
// load generator does not share its event loop: opens the engine over the data dir
// given as argv[2], seeds an issuer, listens on 127.0.0.1:0 and sends
// { port, key, tenantId } back with process.send. Closes on the message 'close'
// or when the parent goes away.
import { buildApp } from '../src/http/app.js';
import { openEngine } from '../src/engine/engine.js';
import { seedBenchIssuer } from './seed.js';
import { skipJournalForBenchmark } from '../src/engine/journal/append.js';

const dataDir = process.argv[2];
if (!dataDir || !process.send) {
  console.error('usage: forked by bench/issue-http.bench.ts with the data dir as its argument');
  process.exit(2);
}

// As `ecf serve` opens it; BENCH_COMPRESS=0 stores documents uncompressed (the old layout), for the comparison.
// BENCH_JOURNAL=0: no journal, for bench/journal-cost.bench.ts's comparison.
if (process.env.BENCH_JOURNAL === '0') skipJournalForBenchmark();
const engine = await openEngine({ dataDir, backgroundCheckpoints: true, compressDocuments: process.env.BENCH_COMPRESS !== '0' });
const seeded = await seedBenchIssuer(engine, { rangeTo: 10_000_000 });
const app = await buildApp({ engine });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

let closing = false;
async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await app.close();
  await engine.close();
  process.exit(0);
}
process.on('message', (m) => {
  if (m === 'close') void close();
  // The event loop's busy time: where the server's one thread of JavaScript and SQLite runs.
  else if (m === 'cpu') process.send!({ cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() });
});
process.on('disconnect', () => void close());
process.send({ port, key: seeded.key, tenantId: seeded.tenantId });
