// The door of engine/store: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
// What loads heavy modules is in ./document-upkeep.ts (compressing and verifying every stored document).
export { isPostgresUrl } from './dialect.js';
export { migrateDown, migrateTo, migrateToLatest, migrationStatus, type MigrationStep } from './migrate.js';
export { storeUnavailable } from './unavailable.js';
