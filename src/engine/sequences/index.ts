// The door of engine/sequences: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { annulSequences, getAnnulment, listAnnulments, retryAnnulment } from './annulments.js';
export { emitSequenceNotices } from './notices.js';
export { addRange, allocate, listRanges } from './ranges.js';
export { AllocateBody, AllocatedSequence, AnnulBody, AnnulmentView, SequenceRangeView } from './schemas.js';
