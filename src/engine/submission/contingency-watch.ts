// The contingency-watch door of engine/submission: contingency (set by hand or by a maintenance window) and
// the watch of the authority's status (the authority's client). Retrying one e-CF is ./retrying.ts.
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { applyMaintenanceWindows, setContingency } from './contingency.js';
export { startStatusWatch, type StatusWatch } from './status-watch.js';
