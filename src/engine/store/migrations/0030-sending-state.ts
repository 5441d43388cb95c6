import { sql, type Kysely } from 'kysely';

/**
 * The payload of an `ecf.submit` work item becomes the conversation with the
 * authority at rest (submission/sending.ts): `phase` prepared, unclear or
 * answered, with `polls`, `failures` and `busy` counts. Before it, the payload
 * had its own words for the same state (`send` or `poll`, an `unclear` flag,
 * `transportFailures`, `busyAnswers`) and a copy of the trackId, which the
 * e-CF row's `taxauth` holds: a poll now reads it there, so the receipt is
 * kept in one place. Only e-CF being sent have such an item: a few rows, not
 * the archive.
 */

interface Before {
  phase?: string;
  trackId?: string;
  polls?: number;
  transportFailures?: number;
  busyAnswers?: number;
  unclear?: boolean;
  sentAt?: string;
  requestId?: string;
}

/** The new payload of an old one; exported for the migration's test. */
export function sendingStateOfBefore(b: Before): Record<string, unknown> {
  const phase = b.phase === 'poll' ? 'answered' : b.unclear ? 'unclear' : 'prepared';
  return {
    phase,
    ...(phase === 'answered' && (b.polls ?? 0) > 0 && { polls: b.polls }),
    ...((b.transportFailures ?? 0) > 0 && { failures: b.transportFailures }),
    ...((b.busyAnswers ?? 0) > 0 && { busy: b.busyAnswers }),
    ...(b.sentAt && { sentAt: b.sentAt }),
    ...(b.requestId && { requestId: b.requestId }),
  };
}

const rows = (db: Kysely<unknown>) => sql<{ id: string; payload: string }>`select id, payload from work where kind = 'ecf.submit'`.execute(db);

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const r of (await rows(db)).rows) {
    const before = JSON.parse(r.payload) as Before | null;
    const next = JSON.stringify(sendingStateOfBefore(before ?? {}));
    await sql`update work set payload = ${next} where id = ${r.id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const r of (await rows(db)).rows) {
    const s = JSON.parse(r.payload) as { phase?: string; polls?: number; failures?: number; busy?: number; sentAt?: string; requestId?: string };
    // The trackId goes back into the payload from the e-CF row, where a poll now reads it.
    const row = s.phase === 'answered' ? (await sql<{ taxauth: string | null }>`select e.taxauth from ecf e join work w on w.ref = e.id where w.id = ${r.id}`.execute(db)).rows[0] : undefined;
    const t = row?.taxauth ? (JSON.parse(row.taxauth) as { t?: string; trackId?: string }) : {};
    const before: Before = {
      phase: s.phase === 'answered' ? 'poll' : 'send',
      ...(s.phase === 'answered' && { trackId: t.t ?? t.trackId, polls: s.polls ?? 0 }),
      ...(s.phase === 'unclear' && { unclear: true }),
      ...(s.failures && { transportFailures: s.failures }),
      ...(s.busy && { busyAnswers: s.busy }),
      ...(s.sentAt && { sentAt: s.sentAt }),
      ...(s.requestId && { requestId: s.requestId }),
    };
    await sql`update work set payload = ${JSON.stringify(before)} where id = ${r.id}`.execute(db);
  }
}
