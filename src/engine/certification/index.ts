// The door of engine/certification: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { certificationArrivals, recordArrivals } from './arrivals.js';
export { loadCases } from './cases.js';
export { importWorkbook } from './import.js';
export { PASOS, pasoOf, type PasoNumber } from './pasos.js';
export { signPortalXmlForTenant } from './portal-xml.js';
export { renderPrintSlots, type PrintLayout } from './print-slots.js';
export { PROBE_ISSUER_RNC, checkReceiver, probeTraces } from './receiver-check.js';
export { certificationReport, reportText } from './report.js';
export { runCertificationSet, type RunEvent } from './run.js';
export { consumoFileName, runSimulation, type SimulationReport } from './simulation.js';
export { getCertification, recordPaso, requireCertification, startCertification } from './state.js';
export { writeConsumoUploads } from './uploads.js';
