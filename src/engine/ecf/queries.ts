import { Type, type Static } from '@sinclair/typebox';
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database, EcfTable } from '../store/schema.js';
import type { Engine } from '../engine-types.js';
import { EngineError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { PageNumber, PageSize, Paged, pageOf, pageWindow } from '../paging.js';
import { DateString, Decimal, EnvironmentSchema, Integer } from '../schema-types.js';
import { check } from '../validation.js';
import { EcfStatusSchema, ecfView, selectEcfRows, summaryView, SUMMARY_COLUMNS, EcfSummary, type EcfView } from './views.js';
import { Dec } from '../money.js';
import { searchKey } from './search-key.js';
import { countBranch, withinSortBounds, type BranchCount } from './search-postgres.js';
import { dayOfRow, issuedWithin, keptCount, nameCount } from './list-counts.js';
import { rowKey } from '../store/functions.js';
import { dialectOf } from '../store/dialect.js';
import { readEcfXml, readRfceXml } from '../store/documents/index.js';
import { tenantKey } from '../tenants/lookup.js';

export async function getEcf(engine: Engine, tenantId: string, id: string): Promise<EcfView> {
  const row = isUuid(id)
    ? await selectEcfRows(engine.db).where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId)).where('ecf.id', '=', id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Ecf');
  return ecfView(row);
}

/** By id, or by e-NCF (for people: `ecf show E310000000001`); the newest environment wins a tie. */
export async function findEcf(engine: Engine, tenantId: string, idOrEncf: string): Promise<EcfView> {
  if (isUuid(idOrEncf)) return getEcf(engine, tenantId, idOrEncf);
  const row = await selectEcfRows(engine.db)
    .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
    .where('ecf.encf', '=', idOrEncf)
    .orderBy('ecf.issued_at', 'desc')
    .executeTakeFirst();
  if (!row) throw notFound('Ecf');
  return ecfView(row);
}

/** The exact signed bytes, as stored (decompressed, their SHA-256 checked: DocumentDamaged otherwise). */
export async function ecfXml(engine: Engine, tenantId: string, id: string, rfce = false): Promise<{ encf: string; bytes: Buffer }> {
  const row = isUuid(id)
    ? await engine.db
        .selectFrom('ecf')
        .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
        .select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.rfce_xml', 'ecf_documents.xml_sha256', 'ecf_documents.rfce_sha256'])
        .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
        .where('ecf.id', '=', id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Ecf');
  if (rfce) {
    const bytes = await readRfceXml(engine.documents, engine.db, row);
    if (!bytes) throw new EngineError('not_found', 'Ecf.NoRfce', `${row.encf} has no signed summary (RFCE): only type 32 under DOP 250,000 has one.`);
    return { encf: row.encf, bytes };
  }
  return { encf: row.encf, bytes: await readEcfXml(engine.documents, engine.db, row) };
}

/** The contract's list parameters, with the contract's names. */
export const ListQuery = Type.Object(
  {
    Type: Type.Optional(Integer()),
    Status: Type.Optional(EcfStatusSchema({ description: 'Only e-CF in this state' })),
    Search: Type.Optional(Type.String({ minLength: 1, description: 'Start of an e-NCF, buyer RNC, internal number or buyer name' })),
    From: Type.Optional(DateString({ description: 'Issue date from (inclusive)' })),
    To: Type.Optional(DateString({ description: 'Issue date to (inclusive)' })),
    Environment: Type.Optional(EnvironmentSchema),
    Retrying: Type.Optional(Type.Boolean()),
    MinAmount: Type.Optional(Decimal()),
    MaxAmount: Type.Optional(Decimal()),
    Sort: Type.Optional(Type.Union([Type.Literal('issuedAt'), Type.Literal('montoTotal')], { errorMessage: 'must be issuedAt or montoTotal' })),
    Order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { errorMessage: 'must be desc or asc' })),
    Page: Type.Optional(PageNumber()),
    PageSize: Type.Optional(PageSize()),
    Skip: Type.Optional(
      Integer({
        description:
          'Rows to skip. When given, Page is not read: the answer reports page ceil(Skip / PageSize) + 1, pages cut at Skip (Skip=40&PageSize=20 is Page=3)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const PagedEcf = Paged(EcfSummary);
export type PagedEcf = Static<typeof PagedEcf>;

/** Sorts after every character, so `prefix + LAST_CHARACTER` bounds a prefix range. */
const LAST_CHARACTER = '\u{10FFFF}';
const cents = (v: number | string) => Number(new Dec(String(v)).times(100).toFixed(0));
/** The Dominican day YYYY-MM-DD starts at 04:00 UTC. */

type EcfQuery = SelectQueryBuilder<Database, 'ecf', object>;
/** Matches past which a page sorted by issue instant is found sooner by that index than by sorting them all. */
const MANY_MATCHES = 5000;
/** Offsets past which a page sorted by issue instant starts at the day its first row falls in (`dayOfRow`). */
const SEEK_PAST = 20_000;

/** The list's filters other than Search, on any query over `ecf`. */
function filtered(qb: EcfQuery, q: ListQuery, amountOffIndex = false, issuedOffIndex = false): EcfQuery {
  const amount = amountOffIndex ? sql<number>`+monto_total_cents` : sql.ref<number>('monto_total_cents');
  if (q.Type !== undefined) qb = qb.where('type', '=', Number(q.Type));
  if (q.Status) qb = qb.where('status', '=', q.Status);
  if (q.Environment) qb = qb.where('environment', '=', q.Environment);
  // Issue dates are Dominican calendar days; issued_at is the instant, so the bounds are day starts.
  qb = issuedWithin(qb, q.From, q.To, issuedOffIndex);
  if (q.Retrying !== undefined) qb = qb.where('retry', q.Retrying ? 'is not' : 'is', null);
  if (q.MinAmount !== undefined) qb = qb.where(amount, '>=', cents(q.MinAmount));
  if (q.MaxAmount !== undefined) qb = qb.where(amount, '<=', cents(q.MaxAmount));
  return qb;
}

type SearchColumn = 'encf' | 'buyer_rnc' | 'internal_number' | 'buyer_name_key';

/** What a search compares: each column with its prefix (names by their search key: no case, no accents). */
const searchPrefixes = (s: string): readonly (readonly [SearchColumn, string])[] => [
  ['encf', s.toUpperCase()],
  ['buyer_rnc', s],
  ['internal_number', s],
  ['buyer_name_key', searchKey(s)],
];

/** The e-CF of the tenant whose `column` starts with `prefix`, with the list's other filters. */
function prefixed(engine: Engine, tenant: number, column: SearchColumn, prefix: string, q: ListQuery): EcfQuery {
  return filtered(engine.db.selectFrom('ecf').where('tenant_key', '=', tenant).where(column, '>=', prefix).where(column, '<', `${prefix}${LAST_CHARACTER}`), q);
}

/**
 * The e-CF whose e-NCF, buyer RNC, internal number or buyer name starts with
 * `s`, one query per branch, as (rid, issued_at, monto_total_cents). Each
 * branch is a prefix range on its own index, and those indexes also hold the
 * sort columns, so sorting and counting the matches reads no table rows
 * (migration 0011).
 */
function searchBranches(engine: Engine, tenant: number, s: string, q: ListQuery) {
  return searchPrefixes(s).map(([column, prefix]) => prefixed(engine, tenant, column, prefix, q).select([rowKey(engine.db).ref.as('rid'), 'issued_at', 'monto_total_cents']));
}

/** A search's matches at most this many are read once, counted and sorted in memory, instead of counted, then sorted, from the store. */
const FEW_MATCHES = 5000;

/**
 * How many sorted index entries cost one table row looked up, measured at
 * ten million e-CF (bench/list-million.bench.ts): sorting a name prefix's
 * 677,000 matches took 55 ms, finding 20 of them by walking the issue-instant
 * index and reading 295 rows 0.2 ms.
 */
const LOOKUP_COST = 10;

type Hit = { rid: number | string; issued_at: number; monto_total_cents: number };

/** Whether any list filter besides Search is given: the kept name counts hold none of them. */
const anyFilter = (q: ListQuery) =>
  q.Type !== undefined || q.Status !== undefined || q.Environment !== undefined || q.Retrying !== undefined || q.From !== undefined || q.To !== undefined || q.MinAmount !== undefined || q.MaxAmount !== undefined;

/**
 * The matches of a search and their exact count. A filter that its prefix
 * indexes do not hold (Type, Status, Environment, Retrying) costs a table
 * lookup per match, in the count and again in the page: then the matches are
 * first read once, up to FEW_MATCHES per branch, and if none has more they
 * are the answer (`all`, deduplicated by row key). Otherwise: usually one
 * branch matches (an e-NCF prefix is no RNC, no name), then its count is the
 * count and its matches are sorted alone (`only`: that branch); else UNION,
 * not UNION ALL, since a row may match two branches; deduplicating costs a
 * temporary b-tree of every match. A name branch with no other filter is
 * counted from `ecf_name_counts` (0025), not by reading its matches.
 */
async function searchHits(engine: Engine, tenant: number, s: string, q: ListQuery) {
  const branches = searchBranches(engine, tenant, s, q);
  if (q.Type !== undefined || q.Status !== undefined || q.Environment !== undefined || q.Retrying !== undefined) {
    const found: Hit[][] = await Promise.all(branches.map((b) => b.limit(FEW_MATCHES + 1).execute()));
    if (found.every((f) => f.length <= FEW_MATCHES)) {
      const all = new Map(found.flat().map((h) => [h.rid, h]));
      return { all: [...all.values()], hits: branches[0]!, count: all.size, counts: undefined };
    }
  }
  const prefixes = searchPrefixes(s);
  const sortColumn = q.Sort === 'montoTotal' ? 'monto_total_cents' : 'issued_at';
  const counted = async (b: (typeof branches)[number], i: number): Promise<BranchCount> => {
    const [column, prefix] = prefixes[i]!;
    const kept = column === 'buyer_name_key' && !anyFilter(q) ? await nameCount(engine, tenant, prefix, `${prefix}${LAST_CHARACTER}`) : undefined;
    // On PostgreSQL a count read from the matches also reads the sort values they span (search-postgres.ts).
    return kept !== undefined ? { n: kept } : countBranch(engine.db, b, sortColumn);
  };
  const counts = await Promise.all(branches.map(counted));
  const matching = branches.flatMap((b, i) => (counts[i]!.n > 0 ? [{ b, i }] : []));
  if (matching.length <= 1) {
    return { all: undefined, hits: matching[0]?.b ?? branches[0]!, only: matching[0] && prefixes[matching[0].i], count: counts.reduce((sum, c) => sum + c.n, 0), counts };
  }
  const hits = matching.map((m) => m.b).reduce((all, b) => all.union(b));
  return { all: undefined, hits, count: Number((await engine.db.selectFrom(hits.as('h')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), counts };
}

/**
 * The page of a search whose one matching branch has many matches, sorted by
 * issue instant, found by walking the issue-instant index and reading rows
 * until the page is full, instead of sorting every match (SQLite). The walk
 * reads at most as many rows as sorting would cost (`budget`: the candidates
 * are that many newest, or oldest, rows, and SQLite stops at the page's last
 * match), so matches that all lie far back cost no more than the sort: a
 * page not filled there is undefined, and the caller sorts. Only for the
 * buyer's RNC and name, whose matches spread over time: an e-NCF or internal
 * number prefix is a run of numbers given out in one stretch of time.
 */
async function walkedPage(
  engine: Engine,
  tenantId: string,
  tenant: number,
  [column, prefix]: readonly [SearchColumn, string],
  q: ListQuery,
  matches: number,
  order: 'asc' | 'desc',
  window: { offset: number; pageSize: number },
  { walkPast = MANY_MATCHES, lookupCost = LOOKUP_COST }: ListTuning,
): Promise<{ rid: number | string }[] | undefined> {
  if (dialectOf(engine.db) !== 'sqlite' || matches <= walkPast || (column !== 'buyer_name_key' && column !== 'buyer_rnc')) return undefined;
  // An amount bound could lead the planner to the amount index, sorting its matches to find the candidates.
  if (q.MinAmount !== undefined || q.MaxAmount !== undefined) return undefined;
  const budget = Math.floor(matches / lookupCost);
  // Spread evenly, the page's last match lies this many rows in: past the budget, the walk would likely not fill it.
  const expected = ((window.offset + window.pageSize) * ((await keptCount(engine, tenantId, {})) ?? 0)) / matches;
  if (expected > budget) return undefined;
  const key = rowKey(engine.db).ref;
  const candidates = filtered(engine.db.selectFrom('ecf').where('tenant_key', '=', tenant), q)
    .select([key.as('rid'), 'issued_at', sql.ref<string>(column).as('c')])
    .orderBy('issued_at', order)
    .orderBy(key, order)
    .limit(budget);
  const rows = await engine.db
    .selectFrom(candidates.as('w'))
    .select('rid')
    .where('c', '>=', prefix)
    .where('c', '<', `${prefix}${LAST_CHARACTER}`)
    .orderBy('issued_at', order)
    .orderBy('rid', order)
    .limit(window.pageSize)
    .offset(window.offset)
    .execute();
  return rows.length === window.pageSize ? rows : undefined;
}

/** The page of matches read into memory, in the list's order: the sort column, then the row key, both in `order` (as the store sorts them). */
function pageOfHits(all: Hit[], column: 'issued_at' | 'monto_total_cents', order: 'asc' | 'desc', offset: number, size: number): Hit[] {
  const sign = order === 'asc' ? 1 : -1;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const value = (h: Hit) => (column === 'issued_at' ? h.issued_at : Number(h.monto_total_cents));
  return all.sort((a, b) => sign * (compare(value(a), value(b)) || compare(a.rid, b.rid))).slice(offset, offset + size);
}

/** The list's thresholds, which tests lower to take the big-store paths on a few rows. */
export interface ListTuning {
  /** Offsets past which a deep page sorted by issue instant seeks its day (SEEK_PAST). */
  readonly seekPast?: number;
  /** Matches past which a search's page is found by walking the issue-instant index (MANY_MATCHES). */
  readonly walkPast?: number;
  /** LOOKUP_COST. */
  readonly lookupCost?: number;
}

export async function listEcf(engine: Engine, tenantId: string, query: unknown, tuning: ListTuning = {}): Promise<PagedEcf> {
  const seekPast = tuning.seekPast ?? SEEK_PAST;
  const q = check(ListQuery, query);
  const window = pageWindow({ page: q.Page, pageSize: q.PageSize, skip: q.Skip });
  const sortColumn = q.Sort === 'montoTotal' ? 'monto_total_cents' : 'issued_at';
  const order = q.Order === 'asc' ? 'asc' : 'desc';
  const search = q.Search?.trim() || undefined;
  // Ties broken by the row key: the rowid every SQLite index ends in, `id` on PostgreSQL (migration 0018).
  const key = rowKey(engine.db).ref;

  let rows: Pick<Selectable<EcfTable>, (typeof SUMMARY_COLUMNS)[number]>[];
  let count: { n: number | string | bigint };
  if (search) {
    const tenant = await tenantKey(engine.db, tenantId);
    const { all, hits, count: counted, only, counts } = await searchHits(engine, tenant, search, q);
    const walked = !all && only && sortColumn === 'issued_at' ? await walkedPage(engine, tenantId, tenant, only, q, counted, order, window, tuning) : undefined;
    const pageHits = all
      ? pageOfHits(all, sortColumn, order, window.offset, window.pageSize)
      : walked ?? (counted
      ? await withinSortBounds(engine.db.selectFrom(hits.as('h')), sortColumn, counts ?? []).select('rid').orderBy(sortColumn, order).orderBy('rid', order).limit(window.pageSize).offset(window.offset).execute()
      : []);
    const rids = pageHits.map((h) => h.rid);
    const found = rids.length
      ? await engine.db.selectFrom('ecf').select([...SUMMARY_COLUMNS, key.as('rid')]).where(key, 'in', rids).execute()
      : [];
    const byRid = new Map(found.map((r) => [r.rid, r]));
    rows = rids.map((rid) => byRid.get(rid)!);
    count = { n: counted };
  } else {
    const base = filtered(engine.db.selectFrom('ecf').where('tenant_key', '=', await tenantKey(engine.db, tenantId)), q);
    const counted = {
      type: q.Type === undefined ? undefined : Number(q.Type),
      status: q.Status,
      environment: q.Environment,
      from: q.From,
      to: q.To,
      retrying: q.Retrying,
      minCents: q.MinAmount === undefined ? undefined : cents(q.MinAmount),
      maxCents: q.MaxAmount === undefined ? undefined : cents(q.MaxAmount),
    };
    const kept = await keptCount(engine, tenantId, counted);
    // Sorted by issue instant with an amount bound, the planner may take the amount index and sort
    // every match (seconds at a million e-CF); with many matches, walking the issue-instant index
    // finds a page after a few rows. `+column` keeps a comparison off its index.
    const amountOffIndex = sortColumn === 'issued_at' && (q.MinAmount !== undefined || q.MaxAmount !== undefined) && (kept ?? 0) > MANY_MATCHES;
    // Sorted by amount with From/To, the planner may take the issue-instant index and sort a month of
    // e-CF (0.1 s at a million); the amount index holds the instant (0022), so walking it reads no table row.
    // PostgreSQL's planner weighs the two by its statistics (and has no unary plus on text).
    const issuedOffIndex = sortColumn === 'monto_total_cents' && dialectOf(engine.db) === 'sqlite';
    let page = filtered(engine.db.selectFrom('ecf').where('tenant_key', '=', await tenantKey(engine.db, tenantId)), q, amountOffIndex, issuedOffIndex);
    let offset = window.offset;
    // An offset at or past the kept total is past the last row, so no day to find (dayOfRow sums a year of
    // day counts for it: 3.6 ms on PostgreSQL at a million e-CF) and no rows to skip, whatever the sort.
    const past = kept !== undefined && offset >= kept;
    const seek = past ? 'past' : sortColumn === 'issued_at' && offset >= seekPast ? await dayOfRow(engine, tenantId, counted, order, offset) : undefined;
    if (seek && seek !== 'past') {
      // The days before the seek day hold `before` rows of the order; the page starts inside the seek day or later.
      page = order === 'desc' ? issuedWithin(page, undefined, seek.day) : issuedWithin(page, seek.day, undefined);
      offset -= seek.before;
    }
    // Past the last row the page is empty: no query skips every match to find that out.
    rows = seek === 'past' ? [] : await page.select([...SUMMARY_COLUMNS]).orderBy(sortColumn, order).orderBy(key, order).limit(window.pageSize).offset(offset).execute();
    count = kept === undefined ? await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() : { n: kept };
  }
  return pageOf(rows.map(summaryView), Number(count.n), window);
}
