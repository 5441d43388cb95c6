import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentSchema, Nullable, Rnc, Text, Uuid } from '../schema-types.js';

/**
 * Inputs and views of organizations, tenants, emitter profiles and API keys.
 * The engine validates against these and the HTTP layer publishes them, so
 * each rule is written once. Lengths follow the authority's XML types.
 */

export const TENANT_ROLES = ['admin_tenant', 'emisor', 'consultor'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];
export const ORGANIZATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

const literalUnion = <const T extends readonly string[]>(values: T, what: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { errorMessage: `must be one of ${values.join(', ')}`, description: what },
  );

export const TenantRoleSchema = literalUnion(TENANT_ROLES, 'Role of a tenant API key');
export const OrganizationRoleSchema = literalUnion(ORGANIZATION_ROLES, 'Role of an organization member');

export const CreateTenantBody = Type.Object(
  {
    rnc: Rnc(),
    legalName: Text({ maxLength: 150 }),
    tradeName: Type.Optional(Nullable(Text({ maxLength: 150 }))),
  },
  { additionalProperties: false },
);
export type CreateTenantBody = Static<typeof CreateTenantBody>;

/** What the operator may set beyond the self-serve body. */
export const CreateTenantInput = Type.Composite(
  [
    CreateTenantBody,
    Type.Object({
      defaultEnvironment: Type.Optional(EnvironmentSchema),
      organizationId: Type.Optional(Nullable(Uuid())),
    }),
  ],
  { additionalProperties: false },
);
export type CreateTenantInput = Static<typeof CreateTenantInput>;

export const UpdateTenantInput = Type.Object(
  {
    legalName: Type.Optional(Text({ maxLength: 150 })),
    tradeName: Type.Optional(Nullable(Text({ maxLength: 150 }))),
    defaultEnvironment: Type.Optional(EnvironmentSchema),
  },
  { additionalProperties: false },
);
export type UpdateTenantInput = Static<typeof UpdateTenantInput>;

export const TenantView = Type.Object({
  id: Uuid(),
  organizationId: Nullable(Uuid()),
  rnc: Type.String(),
  legalName: Type.String(),
  tradeName: Nullable(Type.String()),
  defaultEnvironment: EnvironmentSchema,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type TenantView = Static<typeof TenantView>;

const Phone = Type.String({
  pattern: '^\\d{3}-\\d{3}-\\d{4}$',
  errorMessage: 'must be a phone number written 809-555-1234',
});
const Email = Type.String({
  maxLength: 80,
  pattern: '^\\w+(?:[-+.]\\w+)*@\\w+(?:[-.]\\w+)*\\.\\w+(?:[-.]\\w+)*$',
  errorMessage: 'must be an e-mail address of at most 80 characters',
});
const PlaceCode = (what: string) =>
  Type.String({
    pattern: '^\\d{6}$',
    errorMessage: `must be the six-digit ${what} code of the authority's list, e.g. 010100`,
  });

/** PUT /emitter-profile: every field present, nullable ones may be null. */
export const EmitterProfileBody = Type.Object(
  {
    address: Text({ maxLength: 100 }),
    municipality: Nullable(PlaceCode('municipality')),
    province: Nullable(PlaceCode('province')),
    email: Nullable(Email),
    economicActivity: Nullable(Text({ maxLength: 100 })),
    phones: Nullable(Type.Array(Phone, { maxItems: 3, errorMessage: 'must hold at most 3 phone numbers' })),
  },
  { additionalProperties: false },
);
export type EmitterProfileBody = Static<typeof EmitterProfileBody>;

/** The operator's create-or-update: only the given fields change; address is needed to create. */
export const EmitterProfilePatch = Type.Partial(EmitterProfileBody, { additionalProperties: false });
export type EmitterProfilePatch = Static<typeof EmitterProfilePatch>;

export const EmitterProfileView = Type.Object({
  id: Uuid(),
  tenantId: Uuid(),
  address: Type.String(),
  municipality: Nullable(Type.String()),
  province: Nullable(Type.String()),
  phones: Type.Array(Type.String()),
  email: Nullable(Type.String()),
  economicActivity: Nullable(Type.String()),
  defaultEnvironment: EnvironmentSchema,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type EmitterProfileView = Static<typeof EmitterProfileView>;

/** The view's fields a client cannot change: PUT takes them back unchanged, so GET, edit, PUT works. */
export const PROFILE_READ_ONLY = ['id', 'tenantId', 'defaultEnvironment', 'createdAt', 'updatedAt'] as const;
export type ProfileReadOnlyField = (typeof PROFILE_READ_ONLY)[number];

const readOnly = { readOnly: true, description: 'Read-only: may be sent back as GET gave it; any other value is refused' };

/** PUT /emitter-profile as documented: the body, or the whole view GET answers. */
export const EmitterProfilePutBody = Type.Object(
  {
    ...EmitterProfileBody.properties,
    id: Type.Optional(Uuid(readOnly)),
    tenantId: Type.Optional(Uuid(readOnly)),
    defaultEnvironment: Type.Optional(Type.String(readOnly)),
    createdAt: Type.Optional(Type.String(readOnly)),
    updatedAt: Type.Optional(Nullable(Type.String(readOnly))),
  },
  { additionalProperties: false },
);

const Count = (what: string) => Type.Integer({ minimum: 0, maximum: 10_000_000, description: what, errorMessage: 'must be a whole number from 0 to 10000000' });

export const PlanLimits = Type.Object({
  maxTenants: Count('Tenants the organization may hold'),
  monthlyEcfQuota: Count('e-CF included per month'),
  maxMembers: Count('Members the organization may have'),
});
export type PlanLimits = Static<typeof PlanLimits>;

export const CreateOrganizationInput = Type.Object(
  {
    name: Text({ maxLength: 200 }),
    plan: Type.String({ minLength: 1 }),
    limits: Type.Optional(Type.Partial(PlanLimits)),
    owner: Type.Object({
      name: Text({ maxLength: 200 }),
      email: Type.Optional(Nullable(Email)),
    }),
  },
  { additionalProperties: false },
);
export type CreateOrganizationInput = Static<typeof CreateOrganizationInput>;

export const OrganizationView = Type.Object({
  id: Uuid(),
  name: Type.String(),
  plan: Type.String(),
  limits: PlanLimits,
  tenantCount: Type.Integer(),
  memberCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type OrganizationView = Static<typeof OrganizationView>;

export const AddMemberInput = Type.Object(
  {
    name: Text({ maxLength: 200 }),
    email: Type.Optional(Nullable(Email)),
    role: OrganizationRoleSchema,
  },
  { additionalProperties: false },
);
export type AddMemberInput = Static<typeof AddMemberInput>;

export const MemberView = Type.Object({
  id: Uuid(),
  organizationId: Uuid(),
  name: Type.String(),
  email: Nullable(Type.String()),
  role: OrganizationRoleSchema,
  createdAt: Type.String({ format: 'date-time' }),
});
export type MemberView = Static<typeof MemberView>;

export const ApiKeyView = Type.Object({
  id: Uuid(),
  prefix: Type.String({ description: 'The visible start of the key, enough to recognise it' }),
  role: Type.String(),
  tenantId: Nullable(Uuid()),
  organizationId: Nullable(Uuid()),
  memberId: Nullable(Uuid()),
  name: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type ApiKeyView = Static<typeof ApiKeyView>;
