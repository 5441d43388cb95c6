// The retrying door of engine/submission: sending one e-CF again by hand (the authority client and the keychain).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { retryEcf } from './retry.js';
