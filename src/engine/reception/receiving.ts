// The receiving door of engine/reception: receiving and answering e-CF (the XSDs, signing, the keychain).
// Apart from ./index.ts, because the bundle keeps every module a door re-exports: a command that only
// reads must not load these.
export { CommercialApprovalBody, MAX_REJECTION_REASON, decideCommercialApproval } from './approve.js';
export { APPROVAL_RECEIVED_ANSWER, MAX_RECEIVED_BYTES, receiveEcf, receiveInboundApproval } from './receive.js';
export { receivedEcfContent, type ReceivedContent, type ReceivedLine } from './content.js';
