// The receiver door of engine/certification: Pasos 9 to 11, the probe of the tenant's own receiver before
// the authority sends to it, and what arrived there. The probe signs and sends (signing, the XSDs, the
// authority's wire format, undici), so it stays apart from ./index.ts: the bundle keeps every module a door
// re-exports, and a command that only reads must not load these.
export { certificationArrivals, recordArrivals } from './arrivals.js';
export { PROBE_ISSUER_RNC, checkReceiver, probeTraces } from './receiver-check.js';
