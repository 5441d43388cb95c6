// The door of engine/sequences: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
// What loads heavy modules is in ./annulling.ts (annulments) and ./held-ranges.ts (the check after a restore).
export { emitSequenceNotices } from './notices.js';
export { MAX_SEQUENTIAL, addRange, allocate, listRanges, SERIES } from './ranges.js';
export { nextNumber, setNextNumber, type NextNumberResult, type NextNumberView } from './next-number.js';
export { AllocateBody, AllocatedSequence, AnnulBody, AnnulmentView, MAX_ANNULMENT_LINES_PER_TYPE, MAX_REASON_LENGTH, SequenceRangeView } from './schemas.js';
