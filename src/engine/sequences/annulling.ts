// The annulling door of engine/sequences: annulment ranges (signing an ANECF, the XSDs, the keychain).
// The authority check of ranges held after a restore has its own door, ./held-ranges.ts.
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { annulSequences, getAnnulment, listAnnulments, retryAnnulment } from './annulments.js';
