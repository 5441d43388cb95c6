import { evaluateAlerts } from '../engine/limits/index.js';
import { runJob } from './job-runtime.js';

/** alert.rejection_spike and alert.emission_silence, per tenant, as its settings say. */
await runJob('alerts', async (engine) => ({ emitted: (await evaluateAlerts(engine)).length }));
