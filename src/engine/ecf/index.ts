// The door of engine/ecf: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. Issuing has its own door (./issuing.ts).
export { ListQuery, PagedEcf, ecfXml, findEcf, getEcf, listEcf } from './queries.js';
export { ECF_STATUSES, EcfView, type EcfSummary } from './views.js';
export { ecfStatuses, MAX_STATUS_IDS, type EcfStatusRow } from './statuses.js';
export { notesModifying, notesModifyingEcf } from './notes.js';
export { recentBuyers, type RecentBuyer } from './buyers.js';
