// The door of engine/export: the period export (docs/record.md) and its verifier. The heavy parts
// (exceljs, the XML signature verifier) are loaded inside the functions, on use.
export { exportPeriod, type ExportPeriod, type PeriodInput } from './period.js';
export { exportPeriodFile, type ExportOptions, type ExportProgress, type ExportReport } from './export-period.js';
export { CERTIFICATE_NAME } from './export-walk.js';
export { verifyExport, type ExportProblem, type ExportVerifyOptions, type ExportVerifyReport } from './verify-export.js';
export { MANIFEST_NAME } from './manifest.js';
export { EXPORT_KIND, ExportJobView, ExportRequestBody, exportJobFile, getExportJob, requestExport, runExportHandler } from './jobs.js';
export { EXPORTS_DIR, exportFilePath } from './paths.js';
