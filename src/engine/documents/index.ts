/**
 * The documents area's front door. An e-CF goes through it in this order:
 * the payload (payload.ts) → prepare (validate/ for shape and the per-type
 * matrix, totals.ts for the amounts, then the checks that need them) → the
 * document model (model.ts) → build (ecf-xml.ts, rfce-xml.ts) → sign
 * (sign-ecf.ts). Code outside the area imports from here.
 */

// The payload and the document model.
export { ECF_TYPES, IssueEcfCommand, TAX_TREATMENTS, type EcfType, type TaxTreatment } from './payload.js';
export type {
  NormalizedAdditionalTax,
  NormalizedDetails,
  NormalizedDocument,
  NormalizedLine,
  NormalizedLineForeignCurrency,
  NormalizedRetention,
  Notice,
  PaymentTerms,
} from './model.js';
export { TYPE_NAMES } from './types.js';
export { ECF_CODES } from './codes.js';
export { encfOf } from './encf.js';

// Prepare: validate, compute, check; with the settings it reads.
export { prepareDocument, type ValidationContext, type ValidationOutcome } from './prepare.js';
export { DOCUMENT_SETTINGS, documentSettingsOf, readDocumentSettings, type DocumentSettingKey, type DocumentSettings } from './settings.js';
export { computeTotals, type ComputedDocument, type Totals, type TotalsInput } from './totals.js';
export { dryRunIssue, ValidationResult } from './dry-run.js';

// Build and sign.
export { xmlDate, type Issuer, type Numbering } from './ecf-xml.js';
export { takesRfce } from './rfce-xml.js';
export { signEcf, signEcfOffThread, type SignEcfInput, type SignedEcf } from './sign-ecf.js';
export { anecfData, documentOrder, signAnecf, type AnnulledRange, type SignedAnecf } from './anecf-xml.js';
