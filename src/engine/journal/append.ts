import { dialectOf } from '../store/dialect.js';
import { deferToCommit, type Tx } from '../store/database.js';
import { GENESIS, linkOf, nextHash, type ChainEntry } from './chain.js';
import { JOURNAL_KINDS, type JournalKind } from './kinds.js';

export interface JournalRecord {
  readonly tenantKey: number;
  readonly kind: JournalKind;
  readonly ecfKey?: number | null;
  readonly ref?: string | null;
  readonly digest?: Buffer | null;
  /** Compact text (JSON for anything with structure); kept for the rare kinds, not per e-CF where avoidable. */
  readonly data?: string | null;
}

type Pending = Omit<ChainEntry, 'seq'>;

let skipped = false;
/**
 * For bench/journal-cost.bench.ts alone, in a process of its own: the same
 * server without the journal, to measure what the journal costs. A store
 * written so fails `ecf audit verify`, as it should.
 */
export function skipJournalForBenchmark(): void {
  skipped = true;
}

/**
 * Records a change of record in the tenant's journal, in the transaction of
 * the change. The entry is chained when the transaction is about to commit
 * (deferToCommit): the head row of each tenant is locked then, in tenant
 * order, so concurrent writers on PostgreSQL queue on it only for their
 * commit, and a group commit of many e-CF reads and writes each head once.
 */
export function appendJournal(tx: Tx, now: Date, record: JournalRecord): void {
  if (skipped) return;
  const entry: Pending = {
    tenantKey: record.tenantKey,
    at: now.getTime(),
    kind: JOURNAL_KINDS[record.kind],
    ecfKey: record.ecfKey ?? null,
    ref: record.ref ?? null,
    digest: record.digest ?? null,
    data: record.data ?? null,
  };
  deferToCommit(tx, writeEntries, entry);
}

export interface JournalHead {
  readonly seq: number;
  readonly hash: Buffer;
}

/**
 * The tenant's head, locked until the transaction ends on PostgreSQL (SQLite
 * has one writer). A tenant with no entries yet gets its row here: seq 0 and
 * the genesis hash.
 */
export async function lockedHead(tx: Tx, tenantKey: number): Promise<JournalHead> {
  const read = () => {
    const q = tx.selectFrom('journal_heads').select(['seq', 'hash']).where('tenant_key', '=', tenantKey);
    return (dialectOf(tx) === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  };
  let row = await read();
  if (!row) {
    await tx.insertInto('journal_heads').values({ tenant_key: tenantKey, seq: 0, hash: GENESIS }).onConflict((oc) => oc.column('tenant_key').doNothing()).execute();
    row = await read();
  }
  return { seq: Number(row!.seq), hash: row!.hash };
}

const ROWS_PER_INSERT = 100;

async function writeEntries(tx: Tx, pending: Pending[]): Promise<void> {
  const tenants = [...new Set(pending.map((p) => p.tenantKey))].sort((a, b) => a - b);
  for (const tenantKey of tenants) {
    let head = await lockedHead(tx, tenantKey);
    const rows = [];
    for (const p of pending) {
      if (p.tenantKey !== tenantKey) continue;
      const entry: ChainEntry = { ...p, seq: head.seq + 1 };
      const hash = nextHash(head.hash, entry);
      rows.push({
        tenant_key: tenantKey,
        seq: entry.seq,
        at: entry.at,
        kind: entry.kind,
        ecf_key: entry.ecfKey,
        ref: entry.ref,
        digest: entry.digest,
        data: entry.data,
        link: linkOf(hash),
      });
      head = { seq: entry.seq, hash };
    }
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await tx.insertInto('journal').values(rows.slice(i, i + ROWS_PER_INSERT)).execute();
    await tx.updateTable('journal_heads').set({ seq: head.seq, hash: head.hash }).where('tenant_key', '=', tenantKey).execute();
  }
}

/** What an authority's verdict adds to an `ecf.status` entry: its status code and its messages' codes. */
export interface VerdictCodes {
  readonly code?: number | null;
  readonly messages?: readonly { readonly code: number }[];
}

/**
 * The data of an `ecf.status` entry, words separated by spaces: the new
 * status, then `track=<trackId>` when this change is the one that learns it,
 * `code=<n>` for the authority's status code and `msgs=<c1>,<c2>` for its
 * messages' codes when a verdict came. E.g. `submitted track=7f3a…`,
 * `rejected code=2 msgs=145,613`.
 */
export function ecfStatusData(status: string, learnedTrackId?: string | null, verdict?: VerdictCodes): string {
  const words = [status];
  if (learnedTrackId) words.push(`track=${learnedTrackId}`);
  if (verdict?.code !== undefined && verdict.code !== null) words.push(`code=${verdict.code}`);
  if (verdict?.messages?.length) words.push(`msgs=${verdict.messages.map((m) => m.code).join(',')}`);
  return words.join(' ');
}
