import type { WorkHandler } from './run.js';

/**
 * The work kinds the background job performs, each with its handler.
 * Submission to the authority and webhook delivery register here as they land.
 */
export const WORK_HANDLERS: Readonly<Record<string, WorkHandler>> = {};
