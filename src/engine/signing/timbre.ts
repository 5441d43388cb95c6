import type { Environment } from '../schema-types.js';

/**
 * The timbre (QR) URLs the printed representation carries (NOTES §7). The
 * path segment is lower-case: the authority's production timbre page is
 * case-sensitive. Values are percent-encoded (the security code may hold
 * `+` and `/`; the signature time holds a space).
 */
export const TIMBRE_ENV: Record<Environment, string> = { test: 'testecf', cert: 'certecf', production: 'ecf' };

export interface StandardTimbre {
  readonly environment: Environment;
  readonly issuerRnc: string;
  /** Absent for type 43, type 47 and foreign buyers. */
  readonly buyerRnc: string | null;
  readonly encf: string;
  /** dd-MM-yyyy, as in the XML. */
  readonly issueDate: string;
  /** As in the XML, two decimals. */
  readonly montoTotal: string;
  /** dd-MM-yyyy HH:mm:ss, equal to FechaHoraFirma. */
  readonly signedAt: string;
  readonly securityCode: string;
}

const query = (params: [string, string][]) => params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');

export function standardTimbreUrl(t: StandardTimbre): string {
  const params: [string, string][] = [['RncEmisor', t.issuerRnc]];
  if (t.buyerRnc) params.push(['RncComprador', t.buyerRnc]);
  params.push(
    ['ENCF', t.encf],
    ['FechaEmision', t.issueDate],
    ['MontoTotal', t.montoTotal],
    ['FechaFirma', t.signedAt],
    ['CodigoSeguridad', t.securityCode],
  );
  return `https://ecf.dgii.gov.do/${TIMBRE_ENV[t.environment]}/consultatimbre?${query(params)}`;
}

/** Type 32 under DOP 250,000 (the RFCE case): four parameters, on the fc host. */
export function consumerTimbreUrl(t: Pick<StandardTimbre, 'environment' | 'issuerRnc' | 'encf' | 'montoTotal' | 'securityCode'>): string {
  return `https://fc.dgii.gov.do/${TIMBRE_ENV[t.environment]}/consultatimbrefc?${query([
    ['RncEmisor', t.issuerRnc],
    ['ENCF', t.encf],
    ['MontoTotal', t.montoTotal],
    ['CodigoSeguridad', t.securityCode],
  ])}`;
}
