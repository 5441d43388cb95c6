import type { Engine } from '../engine-types.js';
import { ValidationError, type FieldError } from '../errors.js';
import { inspectCertificate } from '../certificates/inspect.js';
import { readPkcs12 } from '../certificates/pkcs12.js';
import { uploadCertificate } from '../certificates/certificates.js';
import type { CertificateView } from '../certificates/schemas.js';
import { ECF_TYPES } from '../documents/payload.js';
import type { Environment } from '../schema-types.js';
import { addRange, listRanges, NON_EXPIRING } from '../sequences/ranges.js';
import type { SequenceRangeView } from '../sequences/schemas.js';
import { createTenantApiKey, type CreatedApiKey } from '../tenants/api-keys.js';
import { createOrganization, listOrganizations } from '../tenants/organizations.js';
import type { OrganizationView } from '../tenants/schemas.js';
import { createTenant, listTenants, updateTenant } from '../tenants/tenants.js';
import type { TenantView } from '../tenants/schemas.js';
import { isCalendarDate } from '../validation.js';

/**
 * First-run setup (`ecf init`'s wizard and `ecf init --yes` with flags): an
 * organization (optional), the tenant, its default environment, a signing
 * certificate, the first e-NCF ranges and an admin_tenant API key. Running it
 * again with the same answers reuses the organization (by name), the tenant
 * (by RNC), the certificate and identical ranges, and makes a new key.
 */

export interface RangeSpec {
  readonly type: number;
  readonly from: number;
  readonly to: number;
  /** Required except for types 32 and 34. */
  readonly expiresOn?: string | null;
}

export interface FirstRunInput {
  readonly organization?: { readonly name: string; readonly ownerName: string; readonly plan: string } | undefined;
  readonly tenant: { readonly rnc: string; readonly legalName: string; readonly tradeName?: string | null | undefined };
  readonly environment: Environment;
  readonly certificate?: { readonly file: Buffer; readonly password: string } | undefined;
  readonly ranges: readonly RangeSpec[];
}

export interface FirstRunOutcome {
  readonly organization: OrganizationView | null;
  readonly tenant: TenantView;
  readonly tenantCreated: boolean;
  readonly certificate: CertificateView | null;
  readonly ranges: readonly SequenceRangeView[];
  /** The first admin_tenant key: shown once. */
  readonly apiKey: CreatedApiKey;
}

/** `31:1-10000@2027-12-31` (expiry left out for 32 and 34) as a range; every problem named. */
export function parseRangeSpec(text: string, path = 'range'): RangeSpec {
  const m = /^\s*(\d{2})\s*:\s*(\d{1,10})\s*-\s*(\d{1,10})\s*(?:@\s*(\S+))?\s*$/.exec(text);
  if (!m) {
    throw new ValidationError([{ path, code: 'Setup.RangeFormat', message: `"${text}" must be written TYPE:FROM-TO@YYYY-MM-DD, e.g. 31:1-10000@2027-12-31 (no @date for 32 and 34)` }]);
  }
  const spec: RangeSpec = { type: Number(m[1]), from: Number(m[2]), to: Number(m[3]), expiresOn: m[4] ?? null };
  const errors = rangeErrors(spec, path);
  if (errors.length > 0) throw new ValidationError(errors);
  return spec;
}

export function rangeErrors(spec: RangeSpec, path = 'range'): FieldError[] {
  const errors: FieldError[] = [];
  if (!(ECF_TYPES as readonly number[]).includes(spec.type)) errors.push({ path: `${path}.type`, code: 'Setup.RangeType', message: `must be one of ${ECF_TYPES.join(', ')}` });
  if (!(spec.from >= 1 && spec.to >= spec.from && spec.to <= 9_999_999_999)) {
    errors.push({ path: `${path}.to`, code: 'Setup.RangeBounds', message: 'must be a range FROM-TO with 1 ≤ FROM ≤ TO ≤ 9999999999' });
  }
  if (NON_EXPIRING.has(spec.type)) {
    if (spec.expiresOn) errors.push({ path: `${path}.expiresOn`, code: 'Setup.RangeExpiry', message: `type ${spec.type} ranges do not expire; leave out the @date` });
  } else if (!spec.expiresOn || !isCalendarDate(spec.expiresOn)) {
    errors.push({ path: `${path}.expiresOn`, code: 'Setup.RangeExpiry', message: `type ${spec.type} ranges need their expiry date, @YYYY-MM-DD` });
  }
  return errors;
}

/** Opens the certificate with its password and checks it, before anything is created. */
export function checkCertificateFile(file: Buffer, password: string, now: Date): void {
  const { certificate, privateKey } = readPkcs12(file, password);
  inspectCertificate(certificate, privateKey, now);
}

export async function firstRunSetup(engine: Engine, input: FirstRunInput): Promise<FirstRunOutcome> {
  // Everything that can be refused without writing is checked first, so a wrong password creates nothing.
  const problems = input.ranges.flatMap((r, i) => rangeErrors(r, `ranges[${i}]`));
  if (problems.length > 0) throw new ValidationError(problems);
  if (input.certificate) checkCertificateFile(input.certificate.file, input.certificate.password, engine.clock.now());

  let organization: OrganizationView | null = null;
  if (input.organization) {
    const name = input.organization.name.trim();
    organization =
      (await listOrganizations(engine)).find((o) => o.name === name) ??
      (await createOrganization(engine, { name, plan: input.organization.plan, owner: { name: input.organization.ownerName } })).organization;
  }
  const existing = (await listTenants(engine, organization ? { organizationId: organization.id } : {})).find(
    (t) => t.rnc === input.tenant.rnc && t.organizationId === (organization?.id ?? null),
  );
  let tenant: TenantView;
  if (existing) {
    if (existing.defaultEnvironment !== input.environment) {
      tenant = await updateTenant(engine, existing.id, { defaultEnvironment: input.environment });
    } else tenant = existing;
  } else {
    tenant = await createTenant(engine, {
      rnc: input.tenant.rnc,
      legalName: input.tenant.legalName,
      ...(input.tenant.tradeName && { tradeName: input.tenant.tradeName }),
      defaultEnvironment: input.environment,
      ...(organization && { organizationId: organization.id }),
    });
  }
  const certificate = input.certificate ? await uploadCertificate(engine, tenant.id, input.certificate) : null;

  const have = await listRanges(engine, tenant.id);
  const ranges: SequenceRangeView[] = [];
  for (const r of input.ranges) {
    const same = have.find((h) => h.environment === input.environment && h.type === r.type && h.rangeFrom === r.from && h.rangeTo === r.to);
    ranges.push(
      same ??
        (await addRange(engine, {
          tenantId: tenant.id,
          environment: input.environment,
          type: r.type,
          rangeFrom: r.from,
          rangeTo: r.to,
          expiresOn: r.expiresOn ?? null,
        })),
    );
  }
  const apiKey = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'admin_tenant', name: 'ecf init' });
  return { organization, tenant, tenantCreated: !existing, certificate, ranges, apiKey };
}
