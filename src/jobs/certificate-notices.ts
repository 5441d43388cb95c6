import { emitCertificateNotices } from '../engine/certificates/index.js';
import { runJob } from './job-runtime.js';

/** certificate.expiring (90/30/15/7 days) and certificate.expired, each told once. */
await runJob('certificate-notices', async (engine) => ({ emitted: (await emitCertificateNotices(engine)).length }));
