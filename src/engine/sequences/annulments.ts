import { logStateChange } from '../log/state-change.js';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, conflict, notFound, type FieldError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { signingCredentials } from '../certificates/certificates.js';
import { documentOrder, signAnecf, type AnnulledRange, type SignedAnecf } from '../documents/anecf-xml.js';
import type { EcfType } from '../documents/payload.js';
import { TYPE_NAMES } from '../documents/types.js';
import type { Environment } from '../schema-types.js';
import { signingKey, type SigningKey } from '../signing/xmldsig.js';
import { inTransaction, type Db, type Tx } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { PreparedDocument } from '../store/documents/index.js';
import type { AnnulmentLinesTable, AnnulmentsTable, SequenceRangesTable } from '../store/schema.js';
import { annulmentAnswer } from '../taxauth/client.js';
import { TaxauthError } from '../taxauth/errors.js';
import { isDefiniteRefusal } from '../taxauth/conversation.js';
import type { AnnulmentAnswer } from '../taxauth/types.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { check } from '../validation.js';
import { appendJournal } from '../journal/append.js';
import { MAX_SEQUENTIAL, encfOf, skipAnnulled } from './ranges.js';
import { AnnulBody, MAX_ANNULMENT_LINES_PER_TYPE, type AnnulmentView } from './schemas.js';

/**
 * Sequence annulments (ANECF, NOTES §11). One request discards never-used
 * numbers of the tenant's authorized ranges, locally and at once: the
 * discard, the signed ANECF and the record commit in one transaction, and
 * from then on the allocator steps over those numbers whatever the
 * authority says. The same request then sends the document (outside any
 * transaction) and records the answer.
 *
 * Statuses: `sending` (a send is in flight), `voided` (the authority
 * confirmed, codigo 15), `rejected` (it answered and refused), `failed`
 * (no answer: transport failure, timeout, 5xx, authentication that did not
 * go through). A retry sends the same stored bytes again; it is allowed
 * from `failed` and `rejected`. A `sending` record whose send lease ran
 * out belongs to a process that stopped mid-send: it reads as `failed`.
 */

type Row = Selectable<AnnulmentsTable>;
type LineRow = Selectable<AnnulmentLinesTable>;
type RangeRow = Selectable<SequenceRangesTable>;

/** The authority's codigo for "Satisfactorio", the one success observed (NOTES §4.8). */
export const ANNULLED_CODE = '15';

/** CantidadeNCFAnulados has at most ten digits. */
const MAX_TOTAL = 9_999_999_999;

/**
 * A send is seed, signed seed and anularrango, each once more after a 401:
 * at most six calls of the client's timeout. Past that the process that
 * sent it is gone.
 */
const LEASE_CALLS = 6;

const INTERRUPTED = 'The send was interrupted before the authority’s answer was recorded (the process stopped); retry to send the same document again.';

interface Line extends AnnulledRange {
  /** Index in the request. */
  readonly position: number;
}

type Outcome =
  | { readonly status: 'voided' | 'rejected'; readonly answer: AnnulmentAnswer }
  | { readonly status: 'failed'; readonly error: string };

// ---- views

const describe = (l: AnnulledRange): string => `${encfOf(l.series, l.type, l.from)}–${encfOf(l.series, l.type, l.to)}`;

function view(row: Row, lines: readonly LineRow[], now: Date): AnnulmentView {
  const interrupted = row.status === 'sending' && row.sending_until !== null && now.toISOString() >= row.sending_until;
  return {
    id: row.id,
    environment: row.environment as Environment,
    reason: row.reason,
    status: interrupted ? 'failed' : row.status,
    totalCount: row.total_count,
    lines: [...lines]
      .sort((a, b) => a.position - b.position)
      .map((l) => ({
        type: l.type,
        series: l.series,
        rangeFrom: l.range_from,
        rangeTo: l.range_to,
        count: l.range_to - l.range_from + 1,
        typeName: TYPE_NAMES[l.type as EcfType],
      })),
    taxauthCode: row.taxauth_code,
    taxauthMessages: JSON.parse(row.taxauth_messages) as string[],
    lastError: interrupted ? INTERRUPTED : row.last_error,
    attempts: row.attempts,
    submittedAt: row.submitted_at ? toDominicanIso(row.submitted_at) : null,
    voidedAt: row.voided_at ? toDominicanIso(row.voided_at) : null,
    createdAt: toDominicanIso(row.created_at),
  };
}

const linesOf = (db: Db, annulmentId: string) =>
  db.selectFrom('annulment_lines').selectAll().where('annulment_id', '=', annulmentId).orderBy('position').execute();

/** GET /sequences/annulments: the tenant's annulments, newest first. */
export async function listAnnulments(engine: Engine, tenantId: string): Promise<AnnulmentView[]> {
  await requireTenant(engine.db, tenantId);
  const rows = await engine.db
    .selectFrom('annulments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const lines = await engine.db
    .selectFrom('annulment_lines')
    .innerJoin('annulments', 'annulments.id', 'annulment_lines.annulment_id')
    .selectAll('annulment_lines')
    .where('annulments.tenant_id', '=', tenantId)
    .execute();
  const byAnnulment = new Map<string, LineRow[]>();
  for (const l of lines) {
    const list = byAnnulment.get(l.annulment_id) ?? [];
    list.push(l);
    byAnnulment.set(l.annulment_id, list);
  }
  const now = engine.clock.now();
  return rows.map((r) => view(r, byAnnulment.get(r.id) ?? [], now));
}

async function findRow(db: Db, tenantId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Row> {
  const query = db.selectFrom('annulments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  const row = isUuid(id) ? await (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst() : undefined;
  if (!row) throw notFound('Annulment');
  return row;
}

/** GET /sequences/annulments/{id}; another tenant's answers 404. */
export async function getAnnulment(engine: Engine, tenantId: string, id: string): Promise<AnnulmentView> {
  const row = await findRow(engine.db, tenantId, id);
  return view(row, await linesOf(engine.db, row.id), engine.clock.now());
}

// ---- validation

/**
 * Every problem with the lines, given the store as `tx` sees it: numbers
 * within bounds and in order; each line inside one authorized range of the
 * tenant in the environment (same type and series); lines not overlapping
 * one another; numbers never annulled before; numbers never used, which
 * means at or above the range's pointer (below it the allocator handed them
 * out, to an e-CF or to POST /sequences/allocate) and not carried by an
 * e-CF of the tenant in that environment (issued with an external e-NCF);
 * at most 10,000 lines per type and 9,999,999,999 numbers in all (the
 * schema's limits). Returns each line's range.
 */
async function placeLines(tx: Tx, tenantId: string, environment: Environment, lines: readonly Line[]): Promise<Map<Line, RangeRow>> {
  const errors: FieldError[] = [];
  const at = (l: Line) => `lines[${l.position}]`;

  const inBounds: Line[] = [];
  for (const l of lines) {
    let ok = true;
    for (const [field, n] of [['rangeFrom', l.from], ['rangeTo', l.to]] as const) {
      if (n < 1 || n > MAX_SEQUENTIAL) {
        errors.push({ path: `${at(l)}.${field}`, code: 'Sequence.OutOfBounds', message: `must be from 1 to ${MAX_SEQUENTIAL}` });
        ok = false;
      }
    }
    if (ok && l.to < l.from) {
      errors.push({ path: `${at(l)}.rangeTo`, code: 'Sequence.Reversed', message: 'must not be below rangeFrom' });
      ok = false;
    }
    if (ok) inBounds.push(l);
  }

  // Overlaps between lines: sorted by type, series and start, a line overlaps
  // an earlier one when it starts before the farthest end seen in its group.
  const sorted = [...inBounds].sort((a, b) => a.type - b.type || a.series.localeCompare(b.series) || a.from - b.from || a.position - b.position);
  let reach: Line | undefined;
  for (const l of sorted) {
    const sameGroup = reach !== undefined && reach.type === l.type && reach.series === l.series;
    if (sameGroup && l.from <= reach!.to) {
      errors.push({ path: at(l), code: 'Annulment.LinesOverlap', message: `${describe(l)} overlaps ${at(reach!)} (${describe(reach!)})` });
    }
    if (!sameGroup || l.to > reach!.to) reach = l;
  }

  const perType = new Map<number, number>();
  for (const l of lines) perType.set(l.type, (perType.get(l.type) ?? 0) + 1);
  for (const [type, n] of perType) {
    if (n > MAX_ANNULMENT_LINES_PER_TYPE) {
      errors.push({
        path: 'lines',
        code: 'Annulment.TooManyLines',
        message: `has ${n} ranges of type ${type}; an ANECF carries at most ${MAX_ANNULMENT_LINES_PER_TYPE} per type`,
      });
    }
  }
  const total = inBounds.reduce((sum, l) => sum + (l.to - l.from + 1), 0);
  if (total > MAX_TOTAL) {
    errors.push({ path: 'lines', code: 'Annulment.TooManyNumbers', message: `annul ${total} numbers; an ANECF counts at most ${MAX_TOTAL}` });
  }

  // Locked: an allocation moving a pointer waits for the annulment, and the other way round.
  const ranges = await forUpdate(tx, tx.selectFrom('sequence_ranges').selectAll().where('tenant_id', '=', tenantId).where('environment', '=', environment)).execute();
  // The lines annulled before in each range touched, by first number: they never overlap, so their ends are in order too.
  const annulledIn = new Map<string, Pick<LineRow, 'annulment_id' | 'range_from' | 'range_to'>[]>();
  const placed = new Map<Line, RangeRow>();
  for (const l of inBounds) {
    const range = ranges.find((r) => r.type === l.type && r.series === l.series && r.range_from <= l.from && l.to <= r.range_to);
    if (!range) {
      const loaded = ranges
        .filter((r) => r.type === l.type)
        .map((r) => `${r.range_from}–${r.range_to}`)
        .join(', ');
      errors.push({
        path: at(l),
        code: 'Annulment.OutsideRange',
        message: `${describe(l)} is not inside one authorized range of type ${l.type} in ${environment} (${loaded ? `loaded: ${loaded}` : 'none is loaded'})`,
      });
      continue;
    }
    placed.set(l, range);

    let before = annulledIn.get(range.id);
    if (!before) {
      before = await tx
        .selectFrom('annulment_lines')
        .select(['annulment_id', 'range_from', 'range_to'])
        .where('range_id', '=', range.id)
        .orderBy('range_from')
        .execute();
      annulledIn.set(range.id, before);
    }
    const annulled = overlapping(before, l.from, l.to);
    if (annulled.length) {
      const first = annulled[0]!;
      errors.push({
        path: at(l),
        code: 'Annulment.AlreadyAnnulled',
        message: `${describe(l)} overlaps numbers annulled already (${describe({ ...l, from: first.range_from, to: first.range_to })}, annulment ${first.annulment_id})`,
      });
    }
    // Below the pointer every number was handed out, or annulled and stepped over.
    const belowPointer = Math.min(l.to, range.next - 1);
    let n = l.from;
    for (const a of annulled) {
      if (a.range_from > n) break;
      n = Math.max(n, a.range_to + 1);
    }
    if (n <= belowPointer) {
      const first = range.next <= range.range_to ? `the first never-used number of the range is ${range.next}` : 'the range has no never-used numbers left';
      errors.push({
        path: `${at(l)}.rangeFrom`,
        code: 'Annulment.NumbersUsed',
        message: `${encfOf(l.series, l.type, n)} was already handed out (allocated or issued); ${first}`,
      });
    }
    // An e-CF issued with an e-NCF of its own (external numbering) does not move the pointer.
    const above = Math.max(l.from, range.next);
    if (above <= l.to) {
      const issued = await tx
        .selectFrom('ecf')
        .select('encf')
        .where('tenant_key', '=', await tenantKey(tx, tenantId))
        .where('environment', '=', environment)
        .where('encf', '>=', encfOf(l.series, l.type, above))
        .where('encf', '<=', encfOf(l.series, l.type, l.to))
        .orderBy('encf')
        .executeTakeFirst();
      if (issued) {
        errors.push({ path: at(l), code: 'Annulment.NumbersUsed', message: `${issued.encf} was issued by this tenant in ${environment}` });
      }
    }
  }

  if (errors.length) throw new ValidationError(errors, 'The annulment has invalid lines; nothing was annulled.');
  return placed;
}

/** The intervals of a sorted, disjoint list that overlap from–to, lowest first. */
function overlapping<T extends { range_from: number; range_to: number }>(sorted: readonly T[], from: number, to: number): T[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.range_to < from) lo = mid + 1;
    else hi = mid;
  }
  const out: T[] = [];
  for (let i = lo; i < sorted.length && sorted[i]!.range_from <= to; i++) out.push(sorted[i]!);
  return out;
}

// ---- annul, send, retry

const INSERT_CHUNK = 500;

/** An annulment's ranges for its journal entry: `E31:1-10,E32:5-5` (series and type, first and last number). */
const annulledRanges = (lines: readonly Line[]): string => lines.map((l) => `${l.series}${l.type}:${l.from}-${l.to}`).join(',');

/**
 * POST /sequences/annulments: in one transaction, checks every line,
 * discards the numbers (the allocator steps over them from now on), builds
 * and signs the ANECF, checks it against its official schema and stores it
 * with the record; then sends it and records the authority's answer.
 */
export async function annulSequences(engine: Engine, tenantId: string, body: unknown): Promise<AnnulmentView> {
  const cmd = check(AnnulBody, body);
  const tenant = await requireTenant(engine.db, tenantId);
  const environment = cmd.environment;
  const lines: Line[] = cmd.lines.map((l, position) => ({
    position,
    type: Number(l.type),
    series: l.series,
    from: Number(l.rangeFrom),
    to: Number(l.rangeTo),
  }));
  // Read before the transaction: inside it the store's one connection is `tx`'s. A missing
  // certificate is told after the lines are checked, so the caller hears of those first.
  const signer = await signingCredentials(engine, tenantId).then(
    (c) => ({ key: signingKey(c.privateKey, c.certificate) }),
    (error: unknown) => ({ error }),
  );
  const leaseMs = await sendLeaseMs(engine, environment);
  const now = engine.clock.now();
  // Signed and compressed before the transaction (the write lock is not held for either); a
  // failure is told inside it, after the lines are checked, as before.
  const anecf = 'error' in signer ? signer : await signedAnecf(engine, tenant.rnc, lines, now, signer.key);

  const { row, stored } = await inTransaction(engine.db, async (tx) => {
    const placed = await placeLines(tx, tenantId, environment, lines);
    if ('error' in anecf) throw anecf.error;
    const { signed, prepared } = anecf;
    const document = await engine.documents.store(tx, prepared);
    const row: Row = {
      id: newId(),
      tenant_id: tenantId,
      environment,
      reason: cmd.reason.trim(),
      status: 'sending',
      total_count: lines.reduce((sum, l) => sum + (l.to - l.from + 1), 0),
      xml: document.blob,
      xml_sha256: signed.xmlSha256,
      taxauth_code: null,
      taxauth_messages: '[]',
      last_error: null,
      attempts: 1,
      sending_until: new Date(now.getTime() + leaseMs).toISOString(),
      submitted_at: null,
      voided_at: null,
      created_at: now.toISOString(),
      updated_at: null,
    };
    await tx.insertInto('annulments').values(row).execute();
    appendJournal(tx, now, {
      tenantKey: await tenantKey(tx, tenantId),
      kind: 'annulment.recorded',
      ref: row.id,
      digest: Buffer.from(signed.xmlSha256, 'hex'),
      data: annulledRanges(lines),
    });
    const first = documentOrder(lines)[0]!;
    logStateChange(engine.log, tx, {
      subject: 'annulment', tenantId, id: row.id, encf: encfOf(first.series, first.type, first.from), from: null, to: 'sending', attempt: 1,
      extra: { environment, count: row.total_count, lines: lines.length },
    });
    const stored: LineRow[] = lines.map((l) => ({
      annulment_id: row.id,
      position: l.position,
      range_id: placed.get(l)!.id,
      type: l.type,
      series: l.series,
      range_from: l.from,
      range_to: l.to,
    }));
    for (let i = 0; i < stored.length; i += INSERT_CHUNK) {
      await tx.insertInto('annulment_lines').values(stored.slice(i, i + INSERT_CHUNK)).execute();
    }
    // Each range counts its new annulled numbers, and its pointer steps over any that start right at it.
    const added = new Map<string, { range: RangeRow; count: number }>();
    for (const [l, range] of placed) {
      const entry = added.get(range.id) ?? { range, count: 0 };
      entry.count += l.to - l.from + 1;
      added.set(range.id, entry);
    }
    for (const { range, count } of added.values()) {
      const moved = await skipAnnulled(tx, range.id, range.next, range.annulled_ahead + count);
      await tx.updateTable('sequence_ranges').set({ next: moved.next, annulled_ahead: moved.annulledAhead }).where('id', '=', range.id).execute();
    }
    return { row, stored };
  });

  return view(await deliver(engine, row, tenant.rnc, stored), stored, engine.clock.now());
}

/**
 * POST /sequences/annulments/{id}/retry: sends the same signed bytes again,
 * for a `failed` or `rejected` annulment (or one whose sender stopped
 * mid-send). 409 `Annulment.NotRetryable` once voided, `Annulment.InProgress`
 * while another send is in flight.
 */
export async function retryAnnulment(engine: Engine, tenantId: string, id: string): Promise<AnnulmentView> {
  const tenant = await requireTenant(engine.db, tenantId);
  const known = await findRow(engine.db, tenantId, id);
  const leaseMs = await sendLeaseMs(engine, known.environment as Environment);
  const now = engine.clock.now();
  const claimed = await inTransaction(engine.db, async (tx) => {
    // Two retries at once: the second waits here, then sees the first one's `sending`.
    const row = await findRow(tx, tenantId, id, { forUpdate: true });
    if (row.status === 'voided') {
      throw conflict('Annulment.NotRetryable', `Annulment ${row.id} is voided: the authority confirmed it${row.voided_at ? ` at ${toDominicanIso(row.voided_at)}` : ''}.`);
    }
    if (row.status === 'sending' && row.sending_until !== null && now.toISOString() < row.sending_until) {
      throw conflict('Annulment.InProgress', `Annulment ${row.id} is being sent now; wait for its answer.`);
    }
    const next: Row = {
      ...row,
      status: 'sending',
      attempts: row.attempts + 1,
      sending_until: new Date(now.getTime() + leaseMs).toISOString(),
      updated_at: now.toISOString(),
    };
    await tx
      .updateTable('annulments')
      .set({ status: next.status, attempts: next.attempts, sending_until: next.sending_until, updated_at: next.updated_at })
      .where('id', '=', row.id)
      .execute();
    logStateChange(engine.log, tx, {
      subject: 'annulment', tenantId, id: row.id, from: row.status, to: 'sending', attempt: next.attempts, extra: { environment: row.environment, retry: true },
    });
    return next;
  });
  const lines = await linesOf(engine.db, claimed.id);
  return view(await deliver(engine, claimed, tenant.rnc, lines), lines, engine.clock.now());
}

async function signedAnecf(engine: Engine, rnc: string, lines: readonly Line[], now: Date, key: SigningKey): Promise<{ signed: SignedAnecf; prepared: PreparedDocument } | { error: unknown }> {
  try {
    const signed = signAnecf(rnc, lines, now, key);
    return { signed, prepared: await engine.documents.prepare(Buffer.from(signed.xml, 'utf8')) };
  } catch (error) {
    return { error };
  }
}

async function sendLeaseMs(engine: Engine, environment: Environment): Promise<number> {
  return (await engine.taxauth.settings(environment)).timeoutMs * LEASE_CALLS;
}

/** Sends the stored bytes, outside any transaction, and records what came of it. */
async function deliver(engine: Engine, row: Row, rnc: string, lines: readonly LineRow[]): Promise<Row> {
  const environment = row.environment as Environment;
  const first = documentOrder(lines.map((l) => ({ type: l.type, series: l.series, from: l.range_from, to: l.range_to })))[0]!;
  let outcome: Outcome;
  // Decompressed and checked against xml_sha256: a damaged ANECF is never sent (DocumentDamaged).
  const xml = await engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'annulments', id: row.id, encf: encfOf(first.series, first.type, first.from) });
  try {
    const client = await engine.taxauth.client(environment);
    const answer = await engine.taxauth.withToken(row.tenant_id, environment, (token) =>
      client.annulRanges(token, { rnc, encf: encfOf(first.series, first.type, first.from), xml }),
    );
    outcome = { status: answer.code === ANNULLED_CODE ? 'voided' : 'rejected', answer };
  } catch (e) {
    const known = outcomeOfError(e);
    if (!known) {
      await record(engine, row, { status: 'failed', error: `Unexpected error while sending: ${e instanceof Error ? e.message : String(e)}` }, encfOf(first.series, first.type, first.from));
      throw e;
    }
    outcome = known;
  }
  return record(engine, row, outcome, encfOf(first.series, first.type, first.from));
}

/**
 * A refusal of the ANECF itself (a 4xx answer of anularrango other than an
 * authentication one) is the authority's verdict; every other failure means
 * the document got no answer.
 */
function outcomeOfError(e: unknown): Outcome | null {
  if (e instanceof TaxauthError) {
    if (e.operation === 'anulacionrangos' && isDefiniteRefusal(e)) {
      const answer = annulmentAnswer(e.rawBody ?? '') ?? { rnc: null, code: null, name: null, messages: [e.message] };
      return { status: 'rejected', answer };
    }
    const where = e.operation ? ` (${e.operation})` : '';
    const error = e.kind === 'http' ? `The tax authority answered HTTP ${e.status}${where}: ${e.message}` : e.message;
    return { status: 'failed', error };
  }
  if (e instanceof EngineError) return { status: 'failed', error: `${e.code}: ${e.message}` };
  return null;
}

/**
 * Records a send's outcome in one statement. It applies only to the attempt
 * it belongs to: a send that outlived its lease, whose record another
 * attempt took over, records nothing.
 */
async function record(engine: Engine, row: Row, outcome: Outcome, encf: string): Promise<Row> {
  const now = engine.clock.now().toISOString();
  const changes: Partial<Row> =
    outcome.status === 'failed'
      ? { status: 'failed', last_error: outcome.error }
      : {
          status: outcome.status,
          taxauth_code: outcome.answer.code,
          taxauth_messages: JSON.stringify(outcome.answer.messages),
          last_error: null,
          submitted_at: now,
          voided_at: outcome.status === 'voided' ? now : null,
        };
  const result = await engine.db
    .updateTable('annulments')
    .set({ ...changes, sending_until: null, updated_at: now })
    .where('id', '=', row.id)
    .where('status', '=', 'sending')
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return findRow(engine.db, row.tenant_id, row.id);
  // One statement on the store's own connection: committed by now.
  logStateChange(engine.log, engine.db, {
    subject: 'annulment', tenantId: row.tenant_id, id: row.id, encf, from: 'sending', to: outcome.status, attempt: row.attempts,
    extra: {
      environment: row.environment,
      ...(outcome.status === 'failed' ? { err: outcome.error } : { code: outcome.answer.code }),
    },
  });
  return { ...row, ...changes, sending_until: null, updated_at: now };
}
