// The door of engine/health: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { authorityChecks, certificateChecks, sequenceChecks, type HealthCheck } from './checks.js';
export { registerScheduler, staleAfterMsFor } from './heartbeat.js';
export { READINESS_CHECKS, runReadiness } from './readiness.js';
