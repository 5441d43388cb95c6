import { DELIVERY_LADDER_MS } from '../work/ladder.js';

/** How outgoing ACECF are delivered (deliver.ts): the shared delivery ladder, then failed. */
export const APPROVAL_DELIVERY_LADDER_MS = DELIVERY_LADDER_MS;

/** One call to another taxpayer's receiver may take this long. */
export const RECEIVER_TIMEOUT_MS = 15_000;

/** ACECF deliveries to other taxpayers' receivers in flight at once, over all tenants. */
export const RECEIVERS_CONCURRENCY = 16;
