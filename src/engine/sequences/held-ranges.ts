// The held-ranges door of engine/sequences: asking the authority about the ranges held after a restore
// (restore-hold.ts), which loads the authority's client. Apart from ./index.ts, because the bundle keeps
// every module a door re-exports: a command that only reads must not load it.
export { RESTORE_CHECK_LOOKAHEAD, verifyRangesAfterRestore, type RangeCheck } from './restore-check.js';
