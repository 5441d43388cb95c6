// The door of engine/submission: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { AttemptView, listAttempts } from './attempts.js';
export { applyMaintenanceWindows, setContingency } from './contingency.js';
export { retryEcf } from './retry.js';
export { FINAL_STATES } from './rules.js';
