// The door of engine/ecf: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { MAX_IDEMPOTENCY_KEY_LENGTH } from './issue.js';
export { issueAndWait } from './issue-and-wait.js';
export { ListQuery, PagedEcf, ecfXml, findEcf, getEcf, listEcf } from './queries.js';
export { EcfView, type EcfSummary } from './views.js';
