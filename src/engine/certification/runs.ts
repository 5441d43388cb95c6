// The runs door of engine/certification: importing the authority's test set and running it (Pasos 2 to 4)
// and the simulation (Pasos 5 and 6), which issue and send through the document pipeline, signing, the XSDs
// and the keychain. What the person carries to the portal by hand is in ./portal.ts, the receiver's Pasos in
// ./receiver.ts. Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command
// that only reads must not load these.
export { importWorkbook } from './import.js';
export { runCertificationSet, type RunEvent } from './run.js';
export { consumoFileName, runSimulation, type SimulationReport } from './simulation.js';
