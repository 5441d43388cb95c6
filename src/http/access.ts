import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  assertOrganizationManager,
  authenticate,
  OPERATION_ROLES,
  tenantScope,
  type Principal,
  type TenantOperation,
} from '../engine/tenants/index.js';
import { receiverScope } from '../engine/reception/index.js';

/**
 * Each route states who may call it, in its config:
 * - a tenant operation of the role table (the tenant then comes from the key),
 * - `{ organizationParam }`: a key of the organization named by that path param,
 * - `public`: no key (the OpenAPI document).
 * - `receiver`: a B2B receiver route `/{tenantId}/fe/...` called by other
 *   taxpayers: no key; the tenant comes from the path and, when it requires
 *   it, the caller shows a bearer token from its /fe/autenticacion.
 * - `receiver-auth`: that /fe/autenticacion itself (seed and token): the
 *   tenant from the path, no credential.
 * A route under /api/v1 without a declaration refuses to register.
 */
export type Access = TenantOperation | { readonly organizationParam: string } | 'public' | 'receiver' | 'receiver-auth';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyInstance {
    /** Every route's declared access, for the docs and the role-table tests. */
    routeAccess: { method: string; url: string; access: Access }[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The tenant the key is bound to; set on every tenant operation. */
    tenantId: string;
  }
}

export function registerAccess(app: FastifyInstance): void {
  const { engine } = app;
  app.decorateRequest('principal', null);
  app.decorateRequest('tenantId', '');

  const declared: FastifyInstance['routeAccess'] = [];
  app.decorate('routeAccess', declared);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access) {
      if (route.url.startsWith('/api/v1')) throw new Error(`Route ${route.method} ${route.url} does not declare its access`);
      return;
    }
    for (const method of [route.method].flat()) if (method !== 'HEAD') declared.push({ method, url: route.url, access });
    if (typeof access === 'string' && access !== 'public' && access !== 'receiver' && access !== 'receiver-auth' && route.schema) {
      const roles = OPERATION_ROLES[access].join(', ');
      route.schema.description = `${route.schema.description ?? ''}\n\nRoles: ${roles}.`.trim();
    }
  });

  // onRequest: 401/403 come before any body is read or validated.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = request.routeOptions.config.access;
    if (!access || access === 'public') return;
    if (access === 'receiver' || access === 'receiver-auth') {
      const params = request.params as Record<string, string | undefined>;
      request.tenantId = await receiverScope(engine, params.tenantId ?? '', access === 'receiver' ? request.headers.authorization : null);
      return;
    }
    const header = request.headers['x-api-key'];
    const principal = await authenticate(engine, Array.isArray(header) ? header[0] : header);
    request.principal = principal;
    if (typeof access === 'string') {
      request.tenantId = tenantScope(principal, access);
    } else {
      const params = request.params as Record<string, string | undefined>;
      assertOrganizationManager(principal, params[access.organizationParam] ?? '');
    }
  });
}
