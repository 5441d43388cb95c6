// The door of engine/secrets: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { keychainAvailable } from './select.js';
export { ensureSecretStoreKey, secretKeyMissing } from './key-file.js';
export { requireSecretKey, secretKeyState, type SecretKeyState } from './key-state.js';
