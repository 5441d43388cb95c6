/**
 * The contract's webhook limits, in one place. Every ladder reads the
 * injected clock, so tests move time instead of sleeping.
 */

import { DELIVERY_LADDER_MS as SHARED_DELIVERY_LADDER_MS } from '../work/ladder.js';

/** Waits after the 1st … 6th failed attempt (the shared delivery ladder); the 7th failure makes the delivery dead. */
export const DELIVERY_LADDER_MS = SHARED_DELIVERY_LADDER_MS;

/** Attempts before a delivery is dead. */
export const MAX_DELIVERY_ATTEMPTS = DELIVERY_LADDER_MS.length + 1;

/** One attempt (name resolution, connection, request and answer) may take this long. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Attempts in flight at once for one endpoint, and over all endpoints. */
export const PER_ENDPOINT_CONCURRENCY = 4;
export const WEBHOOKS_CONCURRENCY = 64;

/** Failed attempts in a row, over all of an endpoint's deliveries, that disable it. */
export const DISABLE_AFTER_FAILURES = 20;

export const MAX_ENDPOINTS_PER_TENANT = 5;
export const MAX_EVENT_ENTRIES = 20;

/** Why an endpoint is disabled (`disabledReason`). */
export const DISABLED_BY_FAILURES = 'consecutive_failures';
export const DISABLED_BY_TENANT = 'paused';

/** Secrets are `whsec_` and the base64 of this many random bytes. */
export const SECRET_BYTES = 32;
