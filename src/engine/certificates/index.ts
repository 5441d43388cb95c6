// The door of engine/certificates: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export {
  MAX_CERTIFICATE_FILE_BYTES,
  getCertificate,
  listCertificates,
  revokeCertificate,
  uploadCertificate,
  type CertificateUpload,
} from './certificates.js';
export { MIN_RSA_BITS } from './inspect.js';
export { emitCertificateNotices } from './notices.js';
export { CertificateView } from './schemas.js';
