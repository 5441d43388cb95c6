// The door of engine/backup: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { backupDataDir } from './backup.js';
export { restoreDataDir } from './restore.js';
export type { RangesHeld } from './ranges-held.js';
export { copyStore } from './copy-store.js';
