/**
 * An issued e-CF's QR URL as stored (migration 0020): `ecf.qr_url` is empty
 * when this formula, fed the row's own fields, gives back the exact URL
 * signed at issue, and holds the URL otherwise. 167 bytes a row saved.
 *
 * This is a frozen copy of the timbre formula (signing/timbre.ts) as it was
 * when migration 0020 shipped, and like a shipped dictionary it never
 * changes: the QR of an e-CF is printed on paper and must read the same in
 * ten years. A new formula or base URL goes in timbre.ts only; issuing then
 * finds that this one no longer gives the signed URL and stores it whole.
 */

export interface QrRowFields {
  readonly environment: string;
  /** The tenant's RNC (never changes once the tenant exists). */
  readonly issuer_rnc: string;
  readonly type: number;
  readonly encf: string;
  readonly buyer_rnc: string | null;
  /** yyyy-MM-dd. */
  readonly issue_date: string;
  /** Two decimals, as in the XML. */
  readonly monto_total: string;
  /** The row's instants (milliseconds, migration 0022): FechaHoraFirma is signed_at, or issued_at when null, in Dominican time to the second. */
  readonly issued_at: number;
  readonly signed_at: number | null;
  readonly security_code: string;
  readonly submits_rfce: number;
}

/**
 * When the row's e-CF was signed (milliseconds): `signed_at` is null when it
 * equals `issued_at` (migration 0022), which is every e-CF issued so far.
 */
export const signedAtOf = (r: { readonly issued_at: number; readonly signed_at: number | null }): number => r.signed_at ?? r.issued_at;

const HOST_PATH: Record<string, string> = { test: 'testecf', cert: 'certecf', production: 'ecf' };

const query = (params: [string, string][]) => params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');

/** The URL the frozen formula gives for a row; null when the row's environment is not one it knows. */
export function derivedQrUrl(r: QrRowFields): string | null {
  const env = HOST_PATH[r.environment];
  if (!env) return null;
  if (r.submits_rfce === 1) {
    return `https://fc.dgii.gov.do/${env}/consultatimbrefc?${query([
      ['RncEmisor', r.issuer_rnc],
      ['ENCF', r.encf],
      ['MontoTotal', r.monto_total],
      ['CodigoSeguridad', r.security_code],
    ])}`;
  }
  const signed = new Date(signedAtOf(r) - 4 * 3_600_000).toISOString();
  const params: [string, string][] = [['RncEmisor', r.issuer_rnc]];
  if (r.buyer_rnc && r.type !== 43 && r.type !== 47) params.push(['RncComprador', r.buyer_rnc]);
  params.push(
    ['ENCF', r.encf],
    ['FechaEmision', `${r.issue_date.slice(8, 10)}-${r.issue_date.slice(5, 7)}-${r.issue_date.slice(0, 4)}`],
    ['MontoTotal', r.monto_total],
    ['FechaFirma', `${signed.slice(8, 10)}-${signed.slice(5, 7)}-${signed.slice(0, 4)} ${signed.slice(11, 19)}`],
    ['CodigoSeguridad', r.security_code],
  );
  return `https://ecf.dgii.gov.do/${env}/consultatimbre?${query(params)}`;
}

/** What `ecf.qr_url` keeps for a row whose signed QR URL is `signedUrl`: '' when the formula gives it back. */
export const qrUrlToStore = (r: QrRowFields, signedUrl: string): string => (derivedQrUrl(r) === signedUrl ? '' : signedUrl);

/** The QR URL of a stored row: every view and the printed representation read it here. */
export const qrUrlOf = (r: QrRowFields & { readonly qr_url: string }): string => r.qr_url || derivedQrUrl(r)!;
