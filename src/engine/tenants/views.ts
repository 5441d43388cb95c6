import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Environment } from '../schema-types.js';
import { Type } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';
import type {
  ApiKeysTable,
  EmitterProfilesTable,
  OrganizationMembersTable,
  TenantsTable,
} from '../store/schema.js';
import type { ApiKeyView, EmitterProfileView, MemberView, OrganizationRole, TenantView } from './schemas.js';

/** Stored instants leave the engine in Dominican time. */
export const emitted = (instant: string | null): string | null => (instant ? toDominicanIso(instant) : null);

export const tenantView = (r: Omit<Selectable<TenantsTable>, 'store_key'>): TenantView => ({
  id: r.id,
  organizationId: r.organization_id,
  rnc: r.rnc,
  legalName: r.legal_name,
  tradeName: r.trade_name,
  defaultEnvironment: r.default_environment as Environment,
  createdAt: toDominicanIso(r.created_at),
  updatedAt: emitted(r.updated_at),
});

/** `emitter_profiles.phones`: the profile's phone numbers, as the API took them. */
const PhonesColumn = Type.Array(Type.String());

export const profileView = (
  r: Selectable<EmitterProfilesTable>,
  defaultEnvironment: string,
): EmitterProfileView => ({
  id: r.id,
  tenantId: r.tenant_id,
  address: r.address,
  municipality: r.municipality,
  province: r.province,
  phones: parseJsonColumn(PhonesColumn, r.phones, 'emitter_profiles.phones'),
  email: r.email,
  economicActivity: r.economic_activity,
  defaultEnvironment: defaultEnvironment as Environment,
  createdAt: toDominicanIso(r.created_at),
  updatedAt: emitted(r.updated_at),
});

export const memberView = (r: Selectable<OrganizationMembersTable>): MemberView => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  email: r.email,
  role: r.role as OrganizationRole,
  createdAt: toDominicanIso(r.created_at),
});

export const apiKeyView = (r: Selectable<ApiKeysTable>): ApiKeyView => ({
  id: r.id,
  prefix: r.prefix,
  role: r.role,
  tenantId: r.tenant_id,
  organizationId: r.organization_id,
  memberId: r.member_id,
  name: r.name,
  createdAt: toDominicanIso(r.created_at),
  lastUsedAt: emitted(r.last_used_at),
  revokedAt: emitted(r.revoked_at),
});
