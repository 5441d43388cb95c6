export { appendJournal, ecfStatusData, lockedHead, type JournalHead, type JournalRecord, type VerdictCodes } from './append.js';
export { CHAIN_VERSION, GENESIS, LINK_BYTES, canonicalEntry, documentDigest, linkOf, nextHash, type ChainEntry } from './chain.js';
export { JOURNAL_KINDS, kindName, type JournalKind } from './kinds.js';
export { CLOSING_GRACE_MS, CLOSINGS_PER_RUN, writeDueClosings, type ClosingsReport, type ClosingWritten } from './closings.js';
export { checkClosingSignature, closingSignedText, type ClosingData, type TypeTotal } from './closing-data.js';
export { verifyAudit, type AuditProblem, type AuditReport, type TenantAudit } from './verify.js';
