// The door of engine/representation: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { LAYOUTS, type Layout } from '../settings/layouts.js';
export { ecfRepresentation } from './representation.js';
export { ecfDocument } from './document.js';
export type { PrintedEcf, PrintedLine } from './reader.js';
