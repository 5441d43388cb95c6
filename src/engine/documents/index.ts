// The door of engine/documents: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { ValidationResult, dryRunIssue } from './dry-run.js';
export { IssueEcfCommand } from './payload.js';
export { TYPE_NAMES } from './types.js';
