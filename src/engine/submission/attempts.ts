import { Type, type Static } from '@sinclair/typebox';
import { fromRowInstant, toDominicanIso, toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseJsonColumn } from '../json-column.js';
import { documentHashOf } from '../ecf/views.js';
import type { Tx } from '../store/database.js';
import type { Outcome } from './rules.js';
import { tenantKey } from '../tenants/lookup.js';

/** `ecf_attempts.messages`: the authority's messages of one cycle, as the contract shows them. */
const AttemptMessages = Type.Array(Type.Object({ code: Type.Integer(), value: Type.String() }));

/** One submission cycle, as the contract's attempt record. */
export const AttemptView = Type.Object({
  attempt: Type.Integer(),
  outcome: Type.String({ description: 'accepted, accepted_conditional, rejected, review or failed' }),
  trackId: Type.Optional(Type.String()),
  statusCode: Type.Optional(Type.Integer()),
  statusText: Type.Optional(Type.String()),
  sequenceUsed: Type.Optional(Type.Boolean()),
  messages: AttemptMessages,
  retryDecision: Type.Optional(Type.String({ description: 'auto:<code> (resent by itself) or exhausted' })),
  xmlSha256: Type.String(),
  recordedAt: Type.String({ format: 'date-time' }),
});
export type AttemptView = Static<typeof AttemptView>;

export interface AttemptInput {
  readonly ecfId: string;
  readonly outcome: Outcome;
  readonly trackId?: string | null;
  readonly statusCode?: number | null;
  readonly statusText?: string | null;
  readonly sequenceUsed?: boolean | null;
  readonly messages: Readonly<Static<typeof AttemptMessages>>;
  readonly retryDecision?: string | null;
}

export async function recordAttempt(tx: Tx, now: Date, a: AttemptInput): Promise<number> {
  // Attempts point at the e-CF's store key (migration 0022).
  const { key, n } = await tx
    .selectFrom('ecf')
    .select((eb) => ['ecf.store_key as key', eb.selectFrom('ecf_attempts').select((e) => e.fn.countAll<number>().as('n')).whereRef('ecf_attempts.ecf_key', '=', 'ecf.store_key').as('n')])
    .where('ecf.id', '=', a.ecfId)
    .executeTakeFirstOrThrow();
  const attempt = Number(n) + 1;
  await tx
    .insertInto('ecf_attempts')
    .values({
      ecf_key: key,
      attempt,
      outcome: a.outcome,
      track_id: a.trackId ?? null,
      status_code: a.statusCode ?? null,
      status_text: a.statusText ?? null,
      sequence_used: a.sequenceUsed === null || a.sequenceUsed === undefined ? null : a.sequenceUsed ? 1 : 0,
      messages: JSON.stringify(a.messages),
      retry_decision: a.retryDecision ?? null,
      // What is sent is always the e-CF's stored XML: its digest is read from there (migration 0020).
      xml_sha256: null,
      recorded_at: toRowInstant(now),
    })
    .execute();
  return attempt;
}

/** GET /ecf/{id}/attempts: every cycle, oldest first, including those before a resend. */
export async function listAttempts(engine: Engine, tenantId: string, ecfId: string): Promise<AttemptView[]> {
  const ecf = isUuid(ecfId)
    ? await engine.db
        .selectFrom('ecf')
        .leftJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
        .select(['ecf.id', 'ecf.store_key', 'ecf.document_hash', 'ecf_documents.xml_sha256'])
        .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
        .where('ecf.id', '=', ecfId)
        .executeTakeFirst()
    : undefined;
  if (!ecf) throw notFound('Ecf');
  const sent = documentHashOf(ecf);
  const rows = await engine.db.selectFrom('ecf_attempts').selectAll().where('ecf_key', '=', ecf.store_key).orderBy('attempt').execute();
  return rows.map((r) => ({
    attempt: r.attempt,
    outcome: r.outcome,
    ...(r.track_id !== null && { trackId: r.track_id }),
    ...(r.status_code !== null && { statusCode: r.status_code }),
    ...(r.status_text !== null && { statusText: r.status_text }),
    ...(r.sequence_used !== null && { sequenceUsed: r.sequence_used === 1 }),
    messages: parseJsonColumn(AttemptMessages, r.messages, `ecf_attempts.messages of e-CF ${ecfId}, attempt ${r.attempt}`),
    ...(r.retry_decision !== null && { retryDecision: r.retry_decision }),
    xmlSha256: r.xml_sha256 ? r.xml_sha256.toString('hex') : sent,
    recordedAt: toDominicanIso(fromRowInstant(r.recorded_at)),
  }));
}
