export { appendJournal, ecfStatusData, lockedHead, type JournalHead, type JournalRecord, type VerdictCodes } from './append.js';
export { CHAIN_VERSION, GENESIS, LINK_BYTES, canonicalEntry, documentDigest, linkOf, nextHash, type ChainEntry } from './chain.js';
export { JOURNAL_KINDS, kindName, type JournalKind } from './kinds.js';
