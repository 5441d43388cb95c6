// The second door of engine/sequences: annulment ranges (signing an ANECF, the XSDs, the keychain) and the
// authority check of ranges held after a restore (the authority's client).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { annulSequences, getAnnulment, listAnnulments, retryAnnulment } from './annulments.js';
export { RESTORE_CHECK_LOOKAHEAD, verifyRangesAfterRestore, type RangeCheck } from './restore-check.js';
