// A separate engine process issuing e-CF for one tenant, for the journal's process tests:
//
//   node --import tsx test/engine/journal/issue-worker.ts <dataDir> <tenantId> <prefix> <count | forever>
//
// With ISSUE_WORKER_WAIT=1 it waits for a line on stdin after `ready` before issuing.
// Issues with a few requests in flight at once (so group commits carry several e-CF), prints
// `ready` once the engine is open and one JSON line with the count when it is done.
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { invoice31 } from '../../fixtures/payloads.js';

const [dataDir, tenantId, prefix, count] = process.argv.slice(2);
if (!dataDir || !tenantId || !prefix || !count) throw new Error('usage: issue-worker.ts <dataDir> <tenantId> <prefix> <count | forever>');
const total = count === 'forever' ? Infinity : Number(count);
const IN_FLIGHT = 4;
const engine = await openEngine({ dataDir });
console.log('ready');
// Started together: each waits for a line on stdin, so the processes issue at the same time.
if (process.env.ISSUE_WORKER_WAIT === '1') {
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.destroy();
}
let next = 0;
let issued = 0;
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next < total) {
      const n = next++;
      await issueEcf(engine, tenantId, { idempotencyKey: `${prefix}-${n}`, payload: invoice31({ internalNumber: `${prefix}-${n}` }) });
      issued++;
    }
  }),
);
console.log(JSON.stringify({ issued }));
await engine.close();
