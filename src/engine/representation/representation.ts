import type { Engine } from '../engine-types.js';
import { fromRowInstant } from '../clock.js';
import { qrUrlOf, signedAtOf } from '../signing/row-qr.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { getSetting } from '../settings/settings.js';
import { check } from '../validation.js';
import { LayoutSchema, type Layout } from '../settings/layouts.js';
import { readEcfXml } from '../store/documents/index.js';
import { tenantKey } from '../tenants/lookup.js';

export interface Representation {
  readonly ecfId: string;
  readonly encf: string;
  readonly issuerRnc: string;
  readonly layout: Layout;
  readonly pages: number;
  /** `{RNC}{e-NCF}.pdf` (the authority's file name of the XML, NOTES §3.1), `-pos`/`-pos58` before `.pdf` for rolls. */
  readonly fileName: string;
  readonly pdf: Buffer;
}

/** A layout chosen by a caller (any casing), checked; undefined stays undefined (the tenant's default applies). */
export function parseLayout(value: unknown, path = 'layout'): Layout | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const v = typeof value === 'string' ? value.trim().toLowerCase() : value;
  return check(LayoutSchema, v, path) as Layout;
}

/**
 * GET /ecf/{id}/representation and `ecf pdf`: the PDF of one of the
 * tenant's e-CF, drawn from its stored signed XML. Without a layout, the
 * tenant's `representation.default_layout` (letter unless set).
 */
export async function ecfRepresentation(engine: Engine, tenantId: string, id: string, options: { layout?: unknown } = {}): Promise<Representation> {
  const chosen = parseLayout(options.layout);
  const row = isUuid(id)
    ? await engine.db
        .selectFrom('ecf')
        .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
        .innerJoin('tenants', 'tenants.store_key', 'ecf.tenant_key')
        .select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf.issued_at', 'ecf.signed_at', 'ecf.signed_during_contingency', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
        // What qrUrlOf rebuilds an empty qr_url from (migration 0020).
        .select(['ecf.qr_url', 'ecf.environment', 'tenants.rnc as issuer_rnc', 'ecf.type', 'ecf.buyer_rnc', 'ecf.issue_date', 'ecf.monto_total', 'ecf.security_code', 'ecf.submits_rfce'])
        .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
        .where('ecf.id', '=', id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Ecf');
  const layout = chosen ?? (await getSetting(engine, 'representation.default_layout', tenantId));
  // The PDF libraries take a good part of a second to load: only a process that draws a PDF pays for them.
  const [{ readSignedEcf }, { renderRepresentation }] = await Promise.all([import('./reader.js'), import('./render.js')]);
  const printed = readSignedEcf(await readEcfXml(engine.documents, engine.db, row));
  const { pdf, pages } = renderRepresentation(
    printed,
    { qrUrl: qrUrlOf(row), signedDuringContingency: row.signed_during_contingency === 1, signedAt: new Date(fromRowInstant(signedAtOf(row))) },
    layout,
  );
  return {
    ecfId: row.id,
    encf: row.encf,
    issuerRnc: printed.issuer.rnc,
    layout,
    pages,
    fileName: `${printed.issuer.rnc}${row.encf}${layout === 'letter' ? '' : `-${layout}`}.pdf`,
    pdf,
  };
}
