import type { WorkHandler } from './run.js';
import { SUBMIT_KIND, submitHandler } from '../submission/submit.js';
import { DELIVER_APPROVAL_KIND } from '../reception/approve.js';
import { deliverApprovalHandler } from '../reception/deliver.js';

/** The work kinds the background job performs, each with its handler. */
export const WORK_HANDLERS: Readonly<Record<string, WorkHandler>> = {
  [SUBMIT_KIND]: submitHandler,
  [DELIVER_APPROVAL_KIND]: deliverApprovalHandler,
};
