// The second door of engine/store: copying a store (opens both stores, secrets included).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { copyStore } from './copy-store.js';
