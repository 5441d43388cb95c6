// The door of engine/store: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { copyStore } from './copy-store.js';
export { isPostgresUrl } from './dialect.js';
export { migrateDown, migrateTo, migrateToLatest, migrationStatus, type MigrationStep } from './migrate.js';
export { storeUnavailable } from './unavailable.js';
