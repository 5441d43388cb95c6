// The door of engine/reception: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
// What loads heavy modules is in ./receiving.ts (receiving and answering e-CF).
export {
  InboundSettings,
  PagedReceivedEcf,
  ReceivedListQuery,
  findReceivedEcf,
  getReceivedEcf,
  listReceivedEcf,
  setInboundSettings,
} from './queries.js';
export { issueReceiverSeed, receiverScope, validateReceiverSeed } from './receiver-auth.js';
export { APPROVAL_STATES, ReceivedEcfView } from './views.js';
