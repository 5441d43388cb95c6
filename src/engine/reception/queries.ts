import { Type, type Static } from '@sinclair/typebox';
import { dominicanDayBounds } from '../clock.js';
import { sql } from 'kysely';
import type { Engine } from '../engine-types.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { PageNumber, PageSize, Paged, pageOf, pageWindow } from '../paging.js';
import { DateString, Integer, Rnc } from '../schema-types.js';
import { getSetting, setSetting } from '../settings/settings.js';
import { requireTenant } from '../tenants/lookup.js';
import { check } from '../validation.js';
import { AUTOMATIC_APPROVAL_TYPES } from './documents.js';
import {
  APPROVAL_STATES,
  InboundApprovalView,
  RECEIVED_COLUMNS,
  ReceivedEcfSummary,
  inboundApprovalView,
  receivedView,
  summaryView,
  type ReceivedEcfView,
} from './views.js';
import { readArecf, readDecidedAcecf } from './stored.js';

export async function getReceivedEcf(engine: Engine, tenantId: string, id: string): Promise<ReceivedEcfView> {
  const row = isUuid(id)
    ? await engine.db.selectFrom('received_ecf').select(RECEIVED_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('ReceivedEcf');
  const approval = await engine.db.selectFrom('received_ecf_approvals').selectAll().where('received_ecf_id', '=', row.id).executeTakeFirst();
  const arecf = await readArecf(engine, row);
  return receivedView(row, arecf, approval ? { row: approval, acecf: await readDecidedAcecf(engine, approval, row.encf) } : null);
}

/** By id, or by the issuer's e-NCF (for people: `ecf received show E310000000001`); the newest reception wins. */
export async function findReceivedEcf(engine: Engine, tenantId: string, idOrEncf: string): Promise<ReceivedEcfView> {
  if (isUuid(idOrEncf)) return getReceivedEcf(engine, tenantId, idOrEncf);
  const row = await engine.db
    .selectFrom('received_ecf')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('encf', '=', idOrEncf.toUpperCase())
    // A received one before refusals of the same number.
    .orderBy((eb) => eb.case().when('status', '=', 'received').then(0).else(1).end())
    .orderBy('received_at', 'desc')
    .executeTakeFirst();
  if (!row) throw notFound('ReceivedEcf');
  return getReceivedEcf(engine, tenantId, row.id);
}

export const ReceivedListQuery = Type.Object(
  {
    Status: Type.Optional(Type.Union([Type.Literal('received'), Type.Literal('not_received')], { errorMessage: 'must be received or not_received' })),
    Approval: Type.Optional(
      Type.Union(
        APPROVAL_STATES.map((s) => Type.Literal(s)),
        { errorMessage: `must be one of ${APPROVAL_STATES.join(', ')}` },
      ),
    ),
    IssuerRnc: Type.Optional(Rnc()),
    Encf: Type.Optional(Type.String({ minLength: 1, description: 'Start of the e-NCF' })),
    Type: Type.Optional(Integer()),
    From: Type.Optional(DateString({ description: 'Received from (Dominican day, inclusive)' })),
    To: Type.Optional(DateString({ description: 'Received to (Dominican day, inclusive)' })),
    Page: Type.Optional(PageNumber()),
    PageSize: Type.Optional(PageSize()),
  },
  { additionalProperties: false },
);

export const PagedReceivedEcf = Paged(ReceivedEcfSummary);
export type PagedReceivedEcf = Static<typeof PagedReceivedEcf>;

const NAMES = Object.keys(ReceivedListQuery.properties);
/** The parameters in any casing (`status`, `Status`, `STATUS`), as GET /ecf takes them. */
function canonicalNames(query: unknown): Record<string, unknown> {
  // Keyed by the caller's parameter names: no inherited keys, so `__proto__` is a name like any other (and refused).
  const out: Record<string, unknown> = Object.create(null);
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
      out[NAMES.find((n) => n.toLowerCase() === k.toLowerCase()) ?? k] = v;
    }
  }
  return out;
}


/** The inbox, newest first. */
export async function listReceivedEcf(engine: Engine, tenantId: string, query: unknown): Promise<PagedReceivedEcf> {
  const q = check(ReceivedListQuery, canonicalNames(query), 'query');
  const window = pageWindow({ page: q.Page, pageSize: q.PageSize });
  const automatic = [...AUTOMATIC_APPROVAL_TYPES];

  let base = engine.db
    .selectFrom('received_ecf as r')
    .leftJoin('received_ecf_approvals as a', 'a.received_ecf_id', 'r.id')
    .where('r.tenant_id', '=', tenantId);
  if (q.Status) base = base.where('r.status', '=', q.Status);
  if (q.IssuerRnc) base = base.where('r.issuer_rnc', '=', q.IssuerRnc);
  if (q.Encf) base = base.where('r.encf', '>=', q.Encf.toUpperCase()).where('r.encf', '<', `${q.Encf.toUpperCase()}\u{10FFFF}`);
  if (q.Type !== undefined) base = base.where('r.type', '=', Number(q.Type));
  if (q.From) base = base.where('r.received_at', '>=', dominicanDayBounds(q.From).start);
  if (q.To) base = base.where('r.received_at', '<', dominicanDayBounds(q.To).end);
  const notAutomatic = sql<boolean>`(r.type is null or r.type not in (${sql.join(automatic)}))`;
  switch (q.Approval) {
    case 'automatic':
      base = base.where('r.status', '=', 'received').where('r.type', 'in', automatic);
      break;
    case 'not_applicable':
      base = base.where('r.status', '!=', 'received');
      break;
    case 'pending':
      base = base.where('r.status', '=', 'received').where(notAutomatic).where('a.id', 'is', null);
      break;
    case 'accepted':
    case 'rejected':
      base = base.where('a.decision', '=', q.Approval).where(notAutomatic);
      break;
  }
  const columns = RECEIVED_COLUMNS.map((c) => `r.${c}` as const);
  const [rows, count] = await Promise.all([
    base.select([...columns, 'a.decision']).orderBy('r.received_at', 'desc').orderBy('r.id', 'desc').limit(window.pageSize).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return pageOf(rows.map((r) => summaryView(r, r.decision)), Number(count.n), window);
}

/** The ACECF external buyers sent over the tenant's e-CF, newest first (optionally of one e-CF). */
export async function listInboundApprovals(engine: Engine, tenantId: string, ecfId?: string): Promise<InboundApprovalView[]> {
  let q = engine.db.selectFrom('inbound_approvals').selectAll().where('tenant_id', '=', tenantId);
  if (ecfId) q = q.where('ecf_id', '=', ecfId);
  return (await q.orderBy('received_at', 'desc').execute()).map(inboundApprovalView);
}

export const InboundSettings = Type.Object(
  { requireBearerAuth: Type.Boolean({ description: 'true: the /{tenantId}/fe/... receiver routes need a bearer token from /fe/autenticacion' }) },
  { additionalProperties: false },
);
export type InboundSettings = Static<typeof InboundSettings>;

export const REQUIRE_BEARER_SETTING = 'reception.require_bearer_auth';

export async function getInboundSettings(engine: Engine, tenantId: string): Promise<InboundSettings> {
  await requireTenant(engine.db, tenantId);
  return { requireBearerAuth: (await getSetting(engine, REQUIRE_BEARER_SETTING, tenantId)) === true };
}

export async function setInboundSettings(engine: Engine, tenantId: string, body: unknown): Promise<InboundSettings> {
  const settings = check(InboundSettings, body);
  await setSetting(engine, REQUIRE_BEARER_SETTING, settings.requireBearerAuth, tenantId);
  return getInboundSettings(engine, tenantId);
}
