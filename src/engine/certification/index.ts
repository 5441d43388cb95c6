// The door of engine/certification: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
// What loads heavy modules is in the doors named for their purpose: ./runs.ts, ./portal.ts, ./receiver.ts.
export { loadCases } from './cases.js';
export { paso4Needs, type Paso4Need } from './paso4-needs.js';
export { PASOS, pasoOf, type Paso, type PasoNumber } from './pasos.js';
export { certificationReport, reportText } from './report.js';
export { getCertification, recordPaso, requireCertification, startCertification } from './state.js';
export { writeConsumoUploads } from './uploads.js';
