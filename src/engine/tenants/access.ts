import { EngineError, forbidden } from '../errors.js';
import type { TenantRole } from './schemas.js';

/** Who is calling, as authentication established it. Tenant scope comes only from here. */
export type Principal =
  | { readonly kind: 'tenant'; readonly keyId: string; readonly tenantId: string; readonly role: TenantRole }
  | {
      readonly kind: 'organization';
      readonly keyId: string;
      readonly organizationId: string;
      readonly memberId: string;
      readonly role: 'org_owner' | 'org_admin';
    };

const ADMIN = ['admin_tenant'] as const;
const ISSUERS = ['admin_tenant', 'emisor'] as const;
const READERS = ['admin_tenant', 'emisor', 'consultor'] as const;

/**
 * The contract's role table, one row per tenant operation. Routes name their
 * operation and nothing else; a role change happens here and only here.
 */
export const OPERATION_ROLES = {
  'certificates.upload': ADMIN,
  'certificates.list': ADMIN,
  'certificates.get': ADMIN,
  'certificates.revoke': ADMIN,
  'taxauth.connection': ADMIN,
  'webhooks.list': ADMIN,
  'webhooks.get': ADMIN,
  'webhooks.create': ADMIN,
  'webhooks.update': ADMIN,
  'webhooks.delete': ADMIN,
  'webhooks.rotateSecret': ADMIN,
  'webhooks.ping': ADMIN,
  'webhooks.deliveries': ADMIN,
  'webhooks.retryDelivery': ADMIN,
  'emitterProfile.get': ADMIN,
  'emitterProfile.update': ADMIN,
  'sequences.list': ADMIN,
  'sequences.allocate': ADMIN,
  'sequences.annulments': ADMIN,
  'inboundSettings.update': ADMIN,
  'ecf.issue': ISSUERS,
  'ecf.validate': ISSUERS,
  'ecf.retry': ISSUERS,
  'receivedEcf.commercialApproval': ISSUERS,
  'ecf.list': READERS,
  'ecf.get': READERS,
  'ecf.attempts': READERS,
  'ecf.sending': READERS,
  'ecf.xml': READERS,
  'ecf.representation': READERS,
  'receivedEcf.get': READERS,
  // Not in the contract's table (the route is the appliance's): see README, Limits and alerts.
  'emission.get': READERS,
  'emission.pause': ADMIN,
  'emission.resume': ADMIN,
  'receivedEcf.list': READERS,
  // Not in the contract (an addition of issue 35: docs/contract/endpoints.md, Period exports).
  'exports.manage': ADMIN,
} as const satisfies Record<string, readonly TenantRole[]>;

export type TenantOperation = keyof typeof OPERATION_ROLES;

/** The tenant a caller may act on for `operation`, or a 403 naming the roles that may. */
export function tenantScope(principal: Principal, operation: TenantOperation): string {
  const allowed: readonly TenantRole[] = OPERATION_ROLES[operation];
  if (principal.kind !== 'tenant') {
    throw forbidden(
      'Auth.TenantKeyRequired',
      'This operation acts on one tenant and needs a tenant API key; organization keys manage the organization.',
    );
  }
  if (!allowed.includes(principal.role)) {
    throw forbidden(
      'Auth.RoleNotAllowed',
      `Role ${principal.role} may not perform ${operation}; allowed: ${allowed.join(', ')}.`,
    );
  }
  return principal.tenantId;
}

/** Creating tenants in an organization: its owner or admin only. */
export function assertOrganizationManager(principal: Principal, organizationId: string): void {
  if (principal.kind !== 'organization' || principal.organizationId !== organizationId) {
    throw forbidden(
      'Auth.OrganizationManagerRequired',
      "Only an API key of this organization's owner or admin may create tenants in it.",
    );
  }
}

export const unauthenticated = (code: string, message: string): EngineError =>
  new EngineError('unauthenticated', code, message);

