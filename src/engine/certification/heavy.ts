// The second door of engine/certification: running the certification (the document pipeline, signing, the XSDs, the keychain).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { certificationArrivals, recordArrivals } from './arrivals.js';
export { importWorkbook } from './import.js';
export { signPortalXmlForTenant, signPortalXmlWithP12 } from './portal-xml.js';
export { renderPrintSlots, type PrintLayout } from './print-slots.js';
export { PROBE_ISSUER_RNC, checkReceiver, probeTraces } from './receiver-check.js';
export { runCertificationSet, type RunEvent } from './run.js';
export { consumoFileName, runSimulation, type SimulationReport } from './simulation.js';
