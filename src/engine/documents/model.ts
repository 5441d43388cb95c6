import type { Dec } from '../money.js';
import type { LineKind } from './matrix.js';
import type { EcfType, IssueEcfCommand, TaxTreatment } from './payload.js';
import type { ComputedDocument, ItbisRate, TotalsInput } from './totals.js';

/**
 * The document model: what the pipeline hands from step to step once a
 * payload has passed validation (defaults applied, decimals as Dec). The
 * validator produces it, totals.ts computes over it, ecf-xml.ts builds from
 * it and sign-ecf.ts signs it; none of those needs the validator itself.
 */

export type { EcfType, IssueEcfCommand, TaxTreatment } from './payload.js';

/** One problem or notice, for a field; same shape as FieldError. */
export interface Notice {
  path: string;
  code: string;
  message: string;
}

export interface NormalizedRetention {
  /** IndicadorAgenteRetencionoPercepcion: 1 retention, 2 perception; defaults to 1 on 41 and 47, which require it. */
  agent: '1' | '2' | null;
  itbisWithheld: Dec | null;
  isrWithheld: Dec | null;
}

export interface NormalizedAdditionalTax {
  code: string;
  rate: Dec;
  iscEspecifico: Dec;
  iscAdvalorem: Dec;
  otros: Dec;
}

export interface NormalizedDetails {
  referenceQuantity: Dec | null;
  referenceUnit: string | null;
  subquantities: { quantity: Dec; unitCode: string }[];
  alcoholDegrees: Dec | null;
  referenceUnitPrice: Dec | null;
  manufactureDate: string | null;
  expiryDate: string | null;
  mining: { netWeightKilogram: Dec | null; netWeightMining: Dec | null; affiliationType: number | null; settlement: number | null } | null;
}

export interface NormalizedLineForeignCurrency {
  unitPrice: Dec | null;
  discount: Dec | null;
  surcharge: Dec | null;
  lineAmount: Dec | null;
}

export interface NormalizedLine {
  name: string;
  kind: LineKind;
  taxTreatment: TaxTreatment;
  /** For taxed lines; null otherwise. */
  itbisRate: ItbisRate | null;
  quantity: Dec;
  unitPrice: Dec;
  discount: Dec;
  surcharge: Dec;
  priceIncludesTax: boolean;
  codes: { type: string; value: string }[];
  retention: NormalizedRetention | null;
  additionalTaxes: NormalizedAdditionalTax[];
  details: NormalizedDetails | null;
  foreignCurrency: NormalizedLineForeignCurrency | null;
  unitOfMeasure: string | null;
  description: string | null;
  declaredAmount: Dec | null;
}

export interface PaymentTerms {
  condition: '1' | '2' | '3' | null;
  dueDate: string | null;
  methods: { type: string; amount: Dec }[];
}

export interface NormalizedDocument {
  type: EcfType;
  encf: string | null;
  sequenceExpiresOn: string | null;
  /** YYYY-MM-DD, default today. */
  issueDate: string;
  incomeType: string | null;
  paymentCondition: PaymentTerms['condition'];
  paymentDueDate: string | null;
  paymentMethods: PaymentTerms['methods'];
  deferredDelivery: boolean;
  totalsInput: TotalsInput;
  /** The totals of `totalsInput`, computed once by the prepare step. */
  computed: ComputedDocument;
  lines: NormalizedLine[];
  /** The validated payload itself, for the passthrough blocks. */
  command: IssueEcfCommand;
}
