/**
 * What a journal entry records. Each kind is stored as its number: the
 * catalogue is frozen like the documents' dictionaries. A number, once
 * shipped, never changes meaning; a new kind takes a new number.
 */
export const JOURNAL_KINDS = {
  /** The chain's first entry for a tenant whose records predate the journal (migration 0026). */
  'journal.started': 1,
  /** An e-CF issued before the journal began, carried into it by migration 0026: ecfKey, digest. */
  'ecf.carried': 2,
  /** A received e-CF kept before the journal began, carried by migration 0026: ref (its id), digest. */
  'received.carried': 3,
  /** An e-CF signed and stored: ecfKey, digest (see documentDigest). */
  'ecf.issued': 4,
  /** An e-CF's status changed: ecfKey, data (the new status, and the authority's verdict when one came). */
  'ecf.status': 5,
  /** An annulment (ANECF) recorded: ref (its id), digest of the signed ANECF, data (the ranges). */
  'annulment.recorded': 6,
  /** An e-CF received from another issuer: ref (its id), digest of the bytes as they arrived, data (the ARECF's status). */
  'received.stored': 7,
  /** An answer (ARECF or ACECF) signed and kept for a received e-CF: ref, digest of the signed answer. */
  'received.answered': 8,
  /** An ACECF received for one of the tenant's own e-CF: ecfKey, digest. */
  'approval.received': 9,
  'certificate.imported': 10,
  'certificate.revoked': 11,
  'api_key.created': 12,
  'api_key.revoked': 13,
  'settings.changed': 14,
  /** The store was restored from a backup: data (the backup's instant). The chain shows the gap. */
  'backup.restored': 15,
  /** A day's or a month's closing: data (period, counts, totals, perpetual totals, signed head). */
  'closing.day': 16,
  'closing.month': 17,
  'tenant.created': 18,
} as const;

export type JournalKind = keyof typeof JOURNAL_KINDS;

const NAMES = new Map<number, JournalKind>(Object.entries(JOURNAL_KINDS).map(([name, id]) => [id, name as JournalKind]));

export function kindName(id: number): JournalKind | undefined {
  return NAMES.get(id);
}
