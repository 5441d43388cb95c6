import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateString, Decimal, Integer, Nullable, XML_TEXT, XML_TEXT_RULE } from '../schema-types.js';

/**
 * The issue payload (`IssueEcfCommand`) exactly as the contract's table gives
 * it, plus the one field the contract lacks: a line's `taxTreatment`, the way
 * to say that a line is exempt or not invoiceable (credit notes that only
 * correct text need the latter). Shapes only: the per-type matrix in
 * validate.ts says what each type requires, allows and forbids.
 */

export const ECF_TYPES = [31, 32, 33, 34, 41, 43, 44, 45, 46, 47] as const;
export type EcfType = (typeof ECF_TYPES)[number];

const Str = (options: { maxLength?: number; description?: string; pattern?: string; errorMessage?: string } = {}) =>
  Type.String({
    minLength: 1,
    pattern: XML_TEXT,
    errorMessage: `must be a non-empty text${options.maxLength ? ` of at most ${options.maxLength} characters` : ''}, ${XML_TEXT_RULE}`,
    ...options,
  });
/** The XSD's letter-only types (Alfa3/35/60: country names, delivery terms, customs regime); type 46 also wants 3 at least (validate.ts). */
const LETTER = 'a-zA-ZñÑáéíóúÁÉÍÓÚ';
const Letters = (maxLength: number, description?: string) =>
  Str({
    maxLength,
    pattern: `^[${LETTER}](?:[${LETTER}, ]*[${LETTER}])?$`,
    errorMessage: `must be letters (spaces and commas inside), at most ${maxLength}, no digits`,
    ...(description && { description }),
  });
const Digits20 = (description?: string) =>
  Type.String({ pattern: '^[0-9]{1,20}$', errorMessage: 'must be 1 to 20 digits', ...(description && { description }) });
const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Obj = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description && { description }) });

/** Many optional fields of one shape, keeping their names in the static type. */
const many = <K extends string, T extends TSchema>(keys: readonly K[], make: () => T) =>
  Object.fromEntries(keys.map((k) => [k, Opt(make())])) as Record<K, ReturnType<typeof Opt<T>>>;
const decimals = <K extends string>(...keys: K[]) => many(keys, () => Decimal());
const integers = <K extends string>(...keys: K[]) => many(keys, () => Integer());

export const TAX_TREATMENTS = ['taxed', 'exempt', 'non_invoiceable'] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

export const AdditionalTax = Obj({
  code: Type.String({ pattern: '^(00[1-9]|0[12]\\d|03[0-9])$', errorMessage: 'must be a code of Tabla I, 001 to 039' }),
  rate: Type.Optional(Decimal()),
  iscEspecifico: Type.Optional(Decimal()),
  iscAdvalorem: Type.Optional(Decimal()),
  otros: Type.Optional(Decimal()),
});

export const LineDetails = Obj({
  referenceQuantity: Opt(Decimal()),
  referenceUnit: Opt(Str()),
  subquantities: Opt(Type.Array(Obj({ quantity: Decimal(), unitCode: Str() }), { maxItems: 5 })),
  alcoholDegrees: Opt(Decimal()),
  referenceUnitPrice: Opt(Decimal()),
  manufactureDate: Opt(DateString()),
  expiryDate: Opt(DateString()),
  mining: Opt(
    Obj({
      netWeightKilogram: Opt(Decimal()),
      netWeightMining: Opt(Decimal()),
      affiliationType: Opt(Integer()),
      settlement: Opt(Integer()),
    }),
  ),
});

export const Line = Obj({
  name: Str({ maxLength: 80 }),
  kind: Opt(Type.Union([Type.Literal('good'), Type.Literal('service')], { errorMessage: 'must be good or service' })),
  taxTreatment: Opt(
    Type.Union(
      TAX_TREATMENTS.map((t) => Type.Literal(t)),
      {
        errorMessage: 'must be taxed, exempt or non_invoiceable',
        description:
          'taxed (ITBIS at itbisRate: 18, 16 or 0), exempt, or non_invoiceable (adds nothing to the total: refunds, text-only corrections). Default taxed; exempt on types 43, 44 and 47.',
      },
    ),
  ),
  quantity: Opt(Decimal()),
  unitPrice: Opt(Decimal()),
  itbisRate: Opt(Integer({ description: '18, 16 or 0 for taxed lines; default 18 (0 on type 46)' })),
  unitOfMeasure: Opt(Str()),
  description: Opt(Str({ maxLength: 1000 })),
  discount: Opt(Decimal()),
  surcharge: Opt(Decimal()),
  priceIncludesTax: Opt(Type.Boolean()),
  declaredAmount: Opt(Decimal()),
  codes: Opt(Type.Array(Obj({ type: Str({ maxLength: 14 }), value: Str({ maxLength: 35 }) }), { maxItems: 5 })),
  retention: Opt(Obj({ agent: Opt(Str()), itbisWithheld: Opt(Decimal()), isrWithheld: Opt(Decimal()) })),
  additionalTaxes: Opt(Type.Array(AdditionalTax, { maxItems: 2 })),
  foreignCurrency: Opt(
    Obj({ unitPrice: Opt(Decimal()), discount: Opt(Decimal()), surcharge: Opt(Decimal()), lineAmount: Opt(Decimal()) }),
  ),
  details: Opt(LineDetails),
});
export type Line = Static<typeof Line>;

export const GlobalAdjustment = Obj({
  line: Integer(),
  kind: Opt(Type.Union([Type.Literal('discount'), Type.Literal('surcharge')], { errorMessage: 'must be discount or surcharge' })),
  affectsItbisRate: Opt(Integer({ description: 'IndicadorFacturacion of the group adjusted: 1 (18 %), 2 (16 %), 3 (0 %), 4 (exempt)' })),
  amount: Opt(Decimal()),
  norm1007: Opt(Type.Boolean()),
  description: Opt(Str({ maxLength: 45 })),
  percentage: Opt(Decimal()),
});

const ForeignTotals = Obj({
  montoGravadoTotal: Opt(Decimal()),
  montoGravadoI1: Opt(Decimal()),
  montoGravadoI2: Opt(Decimal()),
  montoGravadoI3: Opt(Decimal()),
  montoExento: Opt(Decimal()),
  totalItbis: Opt(Decimal()),
  totalItbis1: Opt(Decimal()),
  totalItbis2: Opt(Decimal()),
  totalItbis3: Opt(Decimal()),
  montoTotal: Opt(Decimal()),
});

export const Shipping = Obj({
  shipmentDate: Opt(DateString()),
  shipmentNumber: Opt(Str({ maxLength: 25 })),
  containerNumber: Opt(Str({ maxLength: 100 })),
  referenceNumber: Opt(Digits20('NumeroReferencia: digits only')),
  grossWeight: Opt(Decimal()),
  netWeight: Opt(Decimal()),
  grossWeightUnit: Opt(Str()),
  netWeightUnit: Opt(Str()),
  packageCount: Opt(Decimal()),
  packageUnit: Opt(Str()),
  volume: Opt(Decimal()),
  volumeUnit: Opt(Str()),
  export: Opt(
    Obj({
      loadingPortName: Opt(Str({ maxLength: 40 })),
      deliveryTerms: Opt(Letters(3, 'CondicionesEntrega, e.g. FOB, CIF')),
      customsRegime: Opt(Letters(35)),
      departurePortName: Opt(Str({ maxLength: 40 })),
      unloadingPortName: Opt(Str({ maxLength: 40 })),
      totalFob: Opt(Decimal()),
      insurance: Opt(Decimal()),
      freight: Opt(Decimal()),
      otherCharges: Opt(Decimal()),
      totalCif: Opt(Decimal()),
    }),
  ),
});

/** Transporte, with each element's limit in the authority's schema. */
export const Transport = Obj({
  driver: Opt(Str({ maxLength: 20 })),
  transportDocument: Opt(Digits20('DocumentoTransporte: digits only')),
  vehicleId: Opt(Str({ maxLength: 10 })),
  plate: Opt(Str({ maxLength: 7 })),
  route: Opt(Str({ maxLength: 20 })),
  zone: Opt(Str({ maxLength: 20 })),
  deliveryNote: Opt(Str({ maxLength: 20 })),
  via: Opt(Type.String({ pattern: '^0[123]$', errorMessage: 'must be 01 (land), 02 (sea) or 03 (air)' })),
  originCountry: Opt(Letters(60)),
  destinationAddress: Opt(Str({ maxLength: 100 })),
  destinationCountry: Opt(Letters(60)),
  carrierRnc: Opt(Str({ maxLength: 20 })),
  carrierName: Opt(Str({ maxLength: 150 })),
  voyageNumber: Opt(Str({ maxLength: 20 })),
});



export const Subtotal = Obj({
  ...integers('number', 'order', 'lines'),
  description: Opt(Str({ maxLength: 40 })),
  ...decimals(
    'montoGravadoTotal', 'montoGravadoI1', 'montoGravadoI2', 'montoGravadoI3', 'totalItbis', 'itbis1', 'itbis2', 'itbis3',
    'montoImpuestoAdicional', 'montoExento', 'amount',
  ),
});

export const Page = Obj({
  ...integers('number', 'lineFrom', 'lineTo'),
  ...decimals(
    'montoGravadoTotal', 'montoGravadoI1', 'montoGravadoI2', 'montoGravadoI3', 'montoExento', 'totalItbis', 'itbis1', 'itbis2',
    'itbis3', 'montoImpuestoAdicional', 'iscEspecifico', 'otrosImpuestos', 'amount', 'nonInvoiceableAmount',
  ),
});

const PlaceCode = (what: string) =>
  Type.String({ pattern: '^\\d{6}$', errorMessage: `must be the six-digit ${what} code of the authority's list, e.g. 010100` });

/** Comprador, with each element's limit in the authority's schema. */
export const Buyer = Obj({
  name: Opt(Str({ maxLength: 150 })),
  rnc: Opt(Str()),
  foreignId: Opt(Str({ maxLength: 20 })),
  email: Opt(
    Type.String({
      maxLength: 80,
      pattern: '^\\w+(?:[-+.]\\w+)*@\\w+(?:[-.]\\w+)*\\.\\w+(?:[-.]\\w+)*$',
      errorMessage: 'must be an e-mail address of at most 80 characters',
    }),
  ),
  contact: Opt(Str({ maxLength: 80 })),
  address: Opt(Str({ maxLength: 100 })),
  municipality: Opt(PlaceCode('municipality')),
  province: Opt(PlaceCode('province')),
  additionalInfo: Opt(Str({ maxLength: 150 })),
});

export const Payment = Obj({
  condition: Opt(Type.String({ pattern: '^[123]$', errorMessage: 'must be 1 (cash), 2 (credit) or 3 (free)' })),
  dueDate: Opt(DateString()),
  methods: Opt(
    Type.Array(
      Obj({
        type: Opt(Type.String({ pattern: '^[1-8]$', errorMessage: 'must be a payment form code from 1 to 8' })),
        amount: Opt(Decimal()),
      }),
      { maxItems: 7 },
    ),
  ),
});

export const IssueEcfCommand = Obj({
  type: Type.Union(
    ECF_TYPES.map((t) => Type.Union([Type.Literal(t), Type.Literal(String(t))])),
    { errorMessage: `must be one of ${ECF_TYPES.join(', ')}`, description: 'e-CF type code' },
  ),
  encf: Opt(Type.String({ pattern: '^E\\d{12}$', errorMessage: 'must be 13 characters: E, the 2-digit type and a 10-digit sequence' })),
  sequenceExpiresOn: Opt(DateString()),
  issueDate: Opt(DateString()),
  incomeType: Opt(Type.String({ pattern: '^0[1-6]$', errorMessage: 'must be 01 to 06' })),
  pricesIncludeTax: Type.Optional(Type.Boolean()),
  deferredDelivery: Type.Optional(Type.Boolean()),
  nonInvoiceableAmount: Opt(Decimal()),
  internalNumber: Opt(Str({ maxLength: 20, description: "The issuer's own invoice number (NumeroFacturaInterna), at most 20 characters; one e-CF per internalNumber" })),
  sellerCode: Opt(Str({ maxLength: 60 })),
  additionalInfo: Opt(Obj({ issuer: Opt(Str({ maxLength: 250 })), buyer: Opt(Str({ maxLength: 150 })) })),
  buyer: Opt(Buyer),
  payment: Type.Optional(Payment),
  lines: Type.Array(Line, { minItems: 1, errorMessage: 'must hold at least one line' }),
  reference: Opt(
    Obj({
      modifiedNcf: Opt(Str()),
      modifiedNcfDate: Opt(DateString()),
      modificationCode: Opt(Type.String({ pattern: '^[1-5]$', errorMessage: 'must be a modification code from 1 to 5' })),
      otherIssuerRnc: Opt(Str()),
    }),
  ),
  globalAdjustments: Opt(Type.Array(GlobalAdjustment, { maxItems: 20 })),
  foreignCurrency: Opt(Obj({ currency: Str(), exchangeRate: Decimal(), totals: Opt(ForeignTotals) })),
  shipping: Opt(Shipping),
  transport: Opt(Transport),
  subtotals: Opt(Type.Array(Subtotal)),
  pagination: Opt(Type.Array(Page)),
  declaredTotals: Opt(Obj(decimals('montoGravadoTotal', 'montoExento', 'totalItbis', 'montoImpuestoAdicional', 'montoTotal'))),
});
export type IssueEcfCommand = Static<typeof IssueEcfCommand>;
