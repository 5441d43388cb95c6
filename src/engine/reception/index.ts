// The door of engine/reception: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { CommercialApprovalBody, decideCommercialApproval } from './approve.js';
export {
  InboundSettings,
  PagedReceivedEcf,
  ReceivedListQuery,
  findReceivedEcf,
  getReceivedEcf,
  listReceivedEcf,
  setInboundSettings,
} from './queries.js';
export { MAX_RECEIVED_BYTES, receiveEcf, receiveInboundApproval } from './receive.js';
export { issueReceiverSeed, receiverScope, validateReceiverSeed } from './receiver-auth.js';
export { APPROVAL_STATES, ReceivedEcfView } from './views.js';
