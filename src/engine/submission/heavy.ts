// The second door of engine/submission: contingency and retries (the authority client and the keychain).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { applyMaintenanceWindows, setContingency } from './contingency.js';
export { retryEcf } from './retry.js';
export { startStatusWatch, type StatusWatch } from './status-watch.js';
