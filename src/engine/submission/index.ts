// The door of engine/submission: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
// What loads heavy modules is in ./contingency-watch.ts (contingency, the status watch) and ./retrying.ts (retryEcf).
export { AttemptView, listAttempts } from './attempts.js';
export { FINAL_STATES, retryRefusal } from './rules.js';
export { EcfSending, getEcfSending, sendingOf } from './sending-view.js';
