import { cleanStore } from '../engine/retention/index.js';
import { runJob } from './job-runtime.js';

/** Removes what is not a record once older than its setting (docs/operating.md, "Retention"); records are never touched. */
await runJob('store-clean', async (engine, stop) => {
  const { ran, stopped, removed, rules } = await cleanStore(engine, { signal: stop });
  return { ran, stopped, removed, rules: Object.fromEntries(rules.map((r) => [r.rule, r.rows])) };
});
