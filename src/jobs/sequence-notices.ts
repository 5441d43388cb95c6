import { emitSequenceNotices } from '../engine/sequences/index.js';
import { runJob } from './job-runtime.js';

/** sequence.expiring (30 and 7 days) and sequence.expired, each told once. */
await runJob('sequence-notices', async (engine) => ({ emitted: (await emitSequenceNotices(engine)).length }));
