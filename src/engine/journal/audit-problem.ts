import type { Db } from '../store/database.js';
import { JOURNAL_KINDS, kindName } from './kinds.js';

/** What `ecf audit verify` names: the first thing in a tenant's journal that does not hold. */
export interface AuditProblem {
  readonly tenantId: string;
  /** The entry at fault, or null when the fault is a store row no entry records. */
  readonly seq: number | null;
  readonly kind: string | null;
  readonly encf: string | null;
  readonly what: string;
}

export const ISSUED = new Set<number>([JOURNAL_KINDS['ecf.issued'], JOURNAL_KINDS['ecf.carried']]);
export const RECEIVED = new Set<number>([JOURNAL_KINDS['received.stored'], JOURNAL_KINDS['received.carried']]);
export const CLOSINGS = new Set<number>([JOURNAL_KINDS['closing.day'], JOURNAL_KINDS['closing.month']]);

export interface Tenant {
  readonly id: string;
  readonly rnc: string;
  readonly key: number;
}

/** Thrown inside a tenant's check to stop it at its first problem. */
export class Found extends Error {
  constructor(readonly problem: Omit<AuditProblem, 'tenantId'>) {
    super(problem.what);
  }
}

export async function encfOfEcf(db: Db, storeKey: number | null): Promise<string | null> {
  if (storeKey === null) return null;
  return (await db.selectFrom('ecf').select('encf').where('store_key', '=', storeKey).executeTakeFirst())?.encf ?? null;
}

export async function encfOfReceived(db: Db, id: string | null): Promise<string | null> {
  if (id === null) return null;
  return (await db.selectFrom('received_ecf').select('encf').where('id', '=', id).executeTakeFirst())?.encf ?? null;
}

export async function entryFault(db: Db, e: { seq: number; kind: number; ecfKey: number | null; ref: string | null }, what: string): Promise<Found> {
  const encf = e.ecfKey !== null ? await encfOfEcf(db, e.ecfKey) : RECEIVED.has(e.kind) ? await encfOfReceived(db, e.ref) : null;
  return new Found({ seq: e.seq, kind: nameOf(e.kind), encf, what });
}

export const nameOf = (kind: number): string => kindName(kind) ?? `unknown kind ${kind}`;
