/**
 * What the tax authority's services answer, normalised (NOTES §4): codes as
 * numbers whatever type they came as, lists as arrays even when the
 * authority sent one object, dates in Dominican ISO form when they could be
 * read and as given otherwise.
 */

/** consultaresultado's codigo (NOTES §4.2): 0 not found, 1 accepted, 2 rejected, 3 in process, 4 accepted with observations. */
export type VerdictCode = 0 | 1 | 2 | 3 | 4;

export interface TaxauthMessage {
  /** The authority's message code; 0 when it gave none. */
  readonly code: number;
  readonly value: string;
}

/** The verdict on one submission, by trackId (consultaresultado). */
export interface ResultVerdict {
  readonly trackId: string;
  readonly code: VerdictCode;
  /** The authority's own text: Aceptado, Rechazado, En Proceso, … */
  readonly status: string;
  /** false: the e-NCF may be used again; true: it is consumed; null: the authority did not say. */
  readonly sequenceUsed: boolean | null;
  readonly messages: TaxauthMessage[];
  /**
   * fechaRecepcion: Dominican ISO (2023-08-15T06:06:57.000-04:00) when it
   * could be read, US-style or other text as the authority gave it otherwise.
   */
  readonly receivedAt: string | null;
}

/** The synchronous verdict on an RFCE (recepcionfc, NOTES §4.3). It has no trackId. */
export interface RfceVerdict {
  readonly code: VerdictCode;
  readonly status: string;
  readonly sequenceUsed: boolean | null;
  readonly messages: TaxauthMessage[];
  readonly encf: string | null;
}

/** One submission of an e-NCF (consultatrackids, NOTES §4.6), oldest first as the authority lists them. */
export interface TrackIdEntry {
  readonly trackId: string;
  readonly status: string;
  readonly receivedAt: string | null;
}

/** consultaestado (NOTES §4.4): the standing of an e-CF by issuer RNC and e-NCF. */
export interface EcfStatus {
  /** 0 not found, 1 accepted, 2 rejected (4: accepted conditional, type 32 under DOP 250,000). */
  readonly code: VerdictCode;
  readonly status: string;
  readonly issuerRnc: string | null;
  readonly encf: string | null;
  readonly totalAmount: string | null;
  readonly totalItbis: string | null;
  readonly issuedOn: string | null;
  readonly signedAt: string | null;
  readonly buyerRnc: string | null;
  readonly securityCode: string | null;
  readonly foreignId: string | null;
}

/** validarsemilla's answer. The token is a bearer credential: keep it out of logs, errors and responses. */
export interface TokenGrant {
  readonly token: string;
  readonly expiresAt: Date;
  readonly issuedAt: Date;
}

export interface EcfUpload {
  /** RNCEmisor: with the e-NCF it names the uploaded file, `{RNC}{eNCF}.xml`. */
  readonly rnc: string;
  readonly encf: string;
  /** The signed bytes exactly as stored; a string is sent as UTF-8. */
  readonly xml: Buffer | string;
}

export interface StatusQuery {
  readonly rnc: string;
  readonly encf: string;
  readonly buyerRnc?: string | null;
  readonly securityCode?: string | null;
}

/** anularrango's answer (NOTES §4.8): `codigo` 15, `nombre` Satisfactorio is the success observed. */
export interface AnnulmentAnswer {
  readonly rnc: string | null;
  /** codigo as text, whatever type it came as. */
  readonly code: string | null;
  readonly name: string | null;
  readonly messages: string[];
}

/** aprobacioncomercial's answer (NOTES §4.7): 1 recorded, 2 refused (e-CF not found, not accepted, …). */
export interface ApprovalVerdict {
  readonly code: number;
  readonly status: string;
  readonly messages: string[];
}

/** One entry of the authority's directory of electronic taxpayers (NOTES §4.9). */
export interface DirectoryEntry {
  readonly rnc: string;
  readonly name: string | null;
  /** Base URL of its e-CF receiver; the fixed /fe/... paths are appended. */
  readonly receptionUrl: string | null;
  /** Base URL of its commercial-approval receiver. */
  readonly approvalUrl: string | null;
  /** Base URL of its optional authentication service. */
  readonly authenticationUrl: string | null;
}
