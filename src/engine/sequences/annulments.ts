import { logStateChange } from '../log/state-change.js';
import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { ValidationError, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { signingCredentials } from '../certificates/certificates.js';
import { documentOrder, signAnecf, type AnnulledRange, type SignedAnecf } from '../documents/anecf-xml.js';
import type { Environment } from '../schema-types.js';
import { signingKey, type SigningKey } from '../signing/xmldsig.js';
import { inTransaction, type Tx } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { PreparedDocument } from '../store/documents/index.js';
import type { SequenceRangesTable } from '../store/schema.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { check } from '../validation.js';
import { appendJournal } from '../journal/append.js';
import { sendAnnulment, sendLeaseMs } from './annulment-send.js';
import { annulmentView, type AnnulmentLineRow, type AnnulmentRow } from './annulment-views.js';
import { MAX_SEQUENTIAL, encfOf, skipAnnulled } from './ranges.js';
import { AnnulBody, MAX_ANNULMENT_LINES_PER_TYPE, type AnnulmentView } from './schemas.js';

export { getAnnulment, listAnnulments } from './annulment-views.js';
export { retryAnnulment } from './annulment-retry.js';
export { ANNULLED_CODE } from './rules.js';

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
 *
 * This file holds the request: its lines checked against the store
 * (placeLines) and the discard with the signed ANECF (annulSequences). The
 * views are in annulment-views.ts, the send in annulment-send.ts (through
 * the conversation with the authority) with its recorder in
 * annulment-recorder.ts, the retry in annulment-retry.ts.
 */

type Row = AnnulmentRow;
type LineRow = AnnulmentLineRow;
type RangeRow = Selectable<SequenceRangesTable>;

/** CantidadeNCFAnulados has at most ten digits. */
const MAX_TOTAL = 9_999_999_999;

interface Line extends AnnulledRange {
  /** Index in the request. */
  readonly position: number;
}

const describe = (l: AnnulledRange): string => `${encfOf(l.series, l.type, l.from)}–${encfOf(l.series, l.type, l.to)}`;

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

// ---- annul

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

  return annulmentView(await sendAnnulment(engine, row, tenant.rnc, stored), stored, engine.clock.now());
}

async function signedAnecf(engine: Engine, rnc: string, lines: readonly Line[], now: Date, key: SigningKey): Promise<{ signed: SignedAnecf; prepared: PreparedDocument } | { error: unknown }> {
  try {
    const signed = signAnecf(rnc, lines, now, key);
    return { signed, prepared: await engine.documents.prepare(Buffer.from(signed.xml, 'utf8')) };
  } catch (error) {
    return { error };
  }
}
