import { dominicanDate } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { getSetting } from '../settings/settings.js';
import { SIMULATION_SLOTS } from './simulation-slots.js';

/** Something Paso 4 needs that the tenant lacks, and the command that gives it. */
export interface Paso4Need {
  readonly code: string;
  readonly message: string;
  readonly fix: string;
}

const SIMULATION_ENVIRONMENT = 'cert';
const sequentialOf = (encf: string): number => Number(encf.slice(3));
const encf = (type: number, n: number): string => `E${type}${String(n).padStart(10, '0')}`;

/**
 * What the simulation (Paso 4) needs before it issues anything, all at once:
 * it goes through the normal issuing path, so the tenant needs an emitter
 * profile, a signing certificate and managed numbering; and the portal never
 * accepts an e-NCF twice, so a `cert` range must not hand out a number the
 * Paso 2 workbook used. Annulling those numbers is no way out: the authority
 * refuses an ANECF of used numbers (1105), so the range's next number is
 * moved past them locally instead (`ecf sequence next --set`).
 */
export async function paso4Needs(engine: Engine, tenantId: string): Promise<Paso4Need[]> {
  const tenant = await engine.db.selectFrom('tenants').select(['rnc']).where('id', '=', tenantId).executeTakeFirstOrThrow();
  const needs: Paso4Need[] = [];
  const profile = await engine.db.selectFrom('emitter_profiles').select('tenant_id').where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!profile) {
    needs.push({
      code: 'EmitterProfile.Missing',
      message: 'The simulation issues through the normal path, which takes the issuer block from the emitter profile; this tenant has none.',
      fix: `ecf tenant profile ${tenant.rnc} --address "…" --municipality 010100 --province 010000`,
    });
  }
  const certificate = await engine.db
    .selectFrom('certificates')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!certificate) {
    needs.push({ code: 'Certificate.Missing', message: 'No signing certificate is loaded for this tenant.', fix: `ecf cert import firma.p12 --tenant ${tenant.rnc}` });
  }
  if ((await getSetting(engine, 'sequences.mode', tenantId)) !== 'managed') {
    needs.push({
      code: 'Certification.ExternalSequences',
      message: 'The simulation numbers its e-CF from cert ranges, but this tenant’s sequences.mode is external.',
      fix: `ecf settings set sequences.mode managed --tenant ${tenant.rnc}`,
    });
  }
  needs.push(...(await rangeNeeds(engine, tenantId, tenant.rnc)));
  return needs;
}

/** One need per type whose open `cert` range would hand out a number at or below the highest the Paso 2 workbook used. */
async function rangeNeeds(engine: Engine, tenantId: string, rnc: string): Promise<Paso4Need[]> {
  const today = dominicanDate(engine.clock.now());
  const cases = await engine.db.selectFrom('certification_cases').select('encf').where('tenant_id', '=', tenantId).where('paso', '=', 2).execute();
  const ranges = await engine.db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('environment', '=', SIMULATION_ENVIRONMENT)
    .orderBy('range_from')
    .execute();
  const needs: Paso4Need[] = [];
  for (const type of [...new Set(SIMULATION_SLOTS.map((s) => s.type))].sort((a, b) => a - b)) {
    const used = cases.filter((c) => c.encf.startsWith(`E${type}`) && /^E\d{12}$/.test(c.encf)).map((c) => sequentialOf(c.encf));
    if (used.length === 0) continue;
    const highest = Math.max(...used);
    const open = ranges.find((r) => r.type === type && r.active === 1 && r.next <= r.range_to && (r.expires_on === null || r.expires_on >= today));
    if (!open || open.next > highest) continue;
    const fix =
      highest < open.range_to
        ? `ecf sequence next --tenant ${rnc} --env cert --type ${type} --set ${highest + 1}`
        : `ecf sequence next --tenant ${rnc} --env cert --type ${type} --set ${open.range_to + 1}  (closes the range; the simulation then adds one above it)`;
    needs.push({
      code: 'Certification.RangeReusesPaso2',
      message: `The cert range ${open.range_from}–${open.range_to} of type ${type} would hand out ${encf(type, open.next)} next, at or below ${encf(type, highest)} that the Paso 2 workbook used; the portal wants new numbers, and refuses an annulment of used ones (1105). Move the range's next number past them here.`,
      fix,
    });
  }
  return needs;
}
