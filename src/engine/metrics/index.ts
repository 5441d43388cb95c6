// The door of engine/metrics: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { PENDING_STATUS, storeSnapshot, type StoreSnapshot } from './store-snapshot.js';
export { listenToTaxauthCalls } from './taxauth-calls.js';
