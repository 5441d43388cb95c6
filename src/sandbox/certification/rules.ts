/**
 * The certification mode's readings of what CERTIFICATION.md marks UNCERTAIN
 * or SILENT, in one place so each is easy to find and to change. Each is the
 * strict reading: the sandbox should fail a run the portal might fail.
 */

/** Paso 4's quota per counter (CERTIFICATION.md §2.6, the portal's screenshot). */
export const PASO4_QUOTA: Readonly<Record<string, number>> = {
  '31': 4,
  '32': 2,
  '33': 1,
  '34': 2,
  '41': 2,
  '43': 2,
  '44': 2,
  '45': 2,
  '46': 2,
  '47': 2,
  '32 RFCE': 4,
  'Facturas de consumo < 250Mil': 4,
};

/**
 * What a rejected e-CF of the set clears (§2.7): the e-CF counter and its
 * acceptances (so a note sent next gets 614). The RFCE counter is kept
 * ([BF] kept 4/4 through a reset); the consumo uploads go with the RFCE,
 * and the Paso 3 counter is its own (SILENT on both).
 */
export const ECF_REJECTION_CLEARS = { ecf: true, rfce: false, consumo: false, acecf: false } as const;

/** A rejected RFCE of the set restarts the RFCE counter only (SILENT; the whole set must pass without rejection). */
export const RFCE_REJECTION_CLEARS_RFCE = true;

/** A rejected ACECF of the set restarts the Paso 3 counter ([CB] `8bd159d` saw DGII restart it). */
export const ACECF_REJECTION_CLEARS_ACECF = true;

/** A rejected Paso 4 document restarts the Paso 4 counters (the screen: sequences are not reused after a restart). */
export const PASO4_REJECTION_CLEARS_PASO4 = true;

/**
 * Aceptado Condicional (code 4) of a set document: SILENT on whether the
 * portal counts it. Not counted, and not a reset.
 */
export const CONDITIONAL_COUNTS = false;

/**
 * An e-NCF of the set accepted earlier in the current run and sent again:
 * code 1209, "already used" (§6, UNCERTAIN). Neither a reset nor counted
 * twice; the applicant's run treats it as accepted.
 */
export const ALREADY_USED_CODE = 1209;
export const ALREADY_USED_TEXT = (encf: string) => `El eNCF ${encf} ya fue utilizado (secuencia utilizada).`;

/** §2.7 / §6: a note whose modified e-NCF is not accepted in the current run. */
export const NOT_ISSUED_CODE = 614;
export const NOT_ISSUED_TEXT = 'El eNCF modificado no ha sido emitido';

/**
 * The code of a field-by-field difference: the implementers quote the
 * message with code 0 (§6).
 */
export const MISMATCH_CODE = 0;

/** §2.5, the authority's wording (sic: "valida" without accent). */
export const mismatchText = (property: string, sent: string, expected: string) =>
  `La propiedad ${property} no es valida debido a que el valor enviado (${sent}) no coincide con el valor (${expected}) del conjunto de datos entregados.`;

/** §2.7: the portal's notice after a rejection in Paso 2. */
export const ECF_RESET_NOTICE = 'Las pruebas de datos de eCF han sido reiniciadas debido a que se han rechazado comprobantes';
/** The sandbox's own wording for the other restarts (the portal's is SILENT). */
export const RFCE_RESET_NOTICE = 'Las pruebas de datos de resúmenes de consumo han sido reiniciadas debido a que se han rechazado resúmenes';
export const ACECF_RESET_NOTICE = 'Las pruebas de datos de aprobaciones comerciales han sido reiniciadas debido a que se han rechazado aprobaciones';
export const PASO4_RESET_NOTICE = 'Las pruebas de simulación de eCF han sido reiniciadas debido a que se han rechazado comprobantes';

/** Paso 9 and 11: how many documents the sandbox sends (SILENT on what DGII sends). */
export const PASO9_DOCUMENTS = 3;
export const PASO11_DOCUMENTS = 3;

/** The types that take a commercial approval, as in the Paso 3 set (§2.3). */
export const APPROVAL_TYPES: ReadonlySet<string> = new Set(['31', '33', '34', '44', '45']);

/** Type 32 at or above this is a full e-CF to recepcion; below, an RFCE plus the portal upload. */
export const CONSUMO_LIMIT = 250_000;
