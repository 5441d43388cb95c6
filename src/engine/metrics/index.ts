// The door of engine/metrics: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { PENDING_STATUS, storeSnapshot, type StoreSnapshot } from './store-snapshot.js';
export { buildInfo, type BuildInfo } from './build-info.js';
export { listenToTaxauthCalls } from '../taxauth/call-listeners.js';
