// The door of engine/certificates: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export {
  MAX_CERTIFICATE_FILE_BYTES,
  getCertificate,
  listCertificates,
  revokeCertificate,
  uploadCertificate,
  type CertificateUpload,
} from './certificates.js';
export { emitCertificateNotices } from './notices.js';
export { CertificateView } from './schemas.js';
