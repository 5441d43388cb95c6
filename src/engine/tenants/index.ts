// The door of engine/tenants: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { OPERATION_ROLES, assertOrganizationManager, tenantScope, type Principal, type TenantOperation } from './access.js';
export { authenticate, createOrganizationApiKey, createTenantApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
export { getEmitterProfile, replaceEmitterProfile, setEmitterProfile } from './emitter-profile.js';
export { addMember, createOrganization, getOrganization, listMembers, listOrganizations } from './organizations.js';
export { PLANS } from './plans.js';
export { CreateTenantBody, EmitterProfilePutBody, EmitterProfileView, ORGANIZATION_ROLES, TENANT_ROLES, TenantView } from './schemas.js';
export { attachTenant, createTenant, findTenant, listTenants, updateTenant } from './tenants.js';
