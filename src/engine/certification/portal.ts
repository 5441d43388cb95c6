// The portal door of engine/certification: what the person takes to or from the authority's portal by hand,
// the portal's XML signed (Pasos 1 and 13) and the printed representations of the simulation (Pasos 5 and 6).
// They load libxml2, signing, the keychain and the PDF renderer, so they stay apart from ./index.ts: the
// bundle keeps every module a door re-exports, and a command that only reads must not load these.
export { signPortalXmlForTenant, signPortalXmlWithP12 } from './portal-xml.js';
export { renderPrintSlots, type PrintLayout } from './print-slots.js';
