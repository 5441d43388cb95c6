// The door of engine/retention: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice.
export { cleanStore, countCleanable, type CleanableSummary, type CleanOptions, type CleanSummary, type RuleSummary } from './clean.js';
export { STORE_TABLES, type StoreTable, type TableClass } from './inventory.js';
