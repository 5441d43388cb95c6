// The issuing door of engine/ecf. It pulls the whole document pipeline (validation, XML,
// signing, the XSDs) and the key store, so it stays apart from ./index.ts: the bundle keeps every
// module a door re-exports, and a command that only reads e-CF (list, show, pdf, status) must not load these.
export { MAX_IDEMPOTENCY_KEY_LENGTH } from './issue.js';
export { issueAndWait, type IssuedEcf } from './issue-and-wait.js';
