/**
 * The bounds of the sandbox's latency and load settings, in a file without
 * dependencies so the CLI's flag definitions (loaded on every start of `ecf`)
 * can share them without loading the sandbox.
 */

/** The services whose latency is set apart; which paths belong to each is in load.ts. */
export const SANDBOX_SERVICES = ['auth', 'reception', 'rfce', 'status'] as const;
export type SandboxService = (typeof SANDBOX_SERVICES)[number];

/** Two minutes: longer than any client timeout worth testing, short enough to notice a typo. */
export const MAX_LATENCY_MS = 120_000;
export const MAX_JITTER_MS = 120_000;
export const MAX_IN_FLIGHT = 100_000;

/** What a request beyond the cap is answered: `mixed` alternates 429 and 503. */
export const OVERLOAD_STATUSES = ['429', '503', 'mixed'] as const;
export type OverloadStatus = (typeof OVERLOAD_STATUSES)[number];
