import type { WorkHandler } from './work/run.js';
import { SUBMIT_KIND, submitHandler } from './submission/submit.js';
import { DELIVER_APPROVAL_KIND } from './reception/approve.js';
import { deliverApprovalHandler } from './reception/deliver.js';
import { EXPORT_KIND, runExportHandler } from './export/jobs.js';

/**
 * The work kinds the background job performs, each with its handler. Wired
 * here, at the composition root beside engine.ts, so the queue (work/) never
 * imports the areas whose work it runs: submission and reception import the
 * queue, and this file imports them.
 */
export const WORK_HANDLERS: Readonly<Record<string, WorkHandler>> = {
  [SUBMIT_KIND]: submitHandler,
  [DELIVER_APPROVAL_KIND]: deliverApprovalHandler,
  [EXPORT_KIND]: runExportHandler,
};
