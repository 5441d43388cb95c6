import { ECF_TYPES, type EcfType, type TaxTreatment } from './payload.js';
import type { ItbisRate } from './totals.js';

/**
 * The per-type matrix as data. The first block copies NOTES §12.5 (Formato
 * e-CF "obligatoriedad" columns) with its codes: 1 required, 2 conditional,
 * 3 optional, 0 not allowed. The second block says which payload fields have
 * an element to go to at all in each type's official XSD (schemas/dgii):
 * a field whose element the type's schema lacks cannot be issued, so the
 * validator refuses it instead of letting the XML step drop it.
 *
 * Column order everywhere: 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.
 */

export type Presence = '0' | '1' | '2' | '3';
type Row<V> = readonly [V, V, V, V, V, V, V, V, V, V];

function row<V>(...values: Row<V>): Readonly<Record<EcfType, V>> {
  return Object.fromEntries(ECF_TYPES.map((t, i) => [t, values[i]])) as Record<EcfType, V>;
}

/** NOTES §12.5, mapped to payload fields. Conditional (2) rules are spelled out in validate.ts. */
export const PRESENCE = {
  /** FechaVencimientoSecuencia. */
  sequenceExpiresOn: row<Presence>('1', '0', '1', '0', '1', '1', '1', '1', '1', '1'),
  /** IndicadorEnvioDiferido: only `true` counts as present. */
  deferredDelivery: row<Presence>('2', '2', '2', '2', '0', '0', '2', '2', '2', '0'),
  /** IndicadorMontoGravado: only `true` counts as present. */
  pricesIncludeTax: row<Presence>('2', '2', '2', '2', '2', '0', '0', '2', '0', '0'),
  /** TipoIngresos. */
  incomeType: row<Presence>('1', '1', '1', '1', '0', '0', '1', '1', '1', '0'),
  /** TipoPago. */
  paymentCondition: row<Presence>('1', '1', '1', '1', '1', '3', '1', '1', '1', '3'),
  /** FechaLimitePago; 2 = required when the condition is 2 (credit). */
  paymentDueDate: row<Presence>('2', '2', '2', '2', '2', '0', '2', '2', '2', '3'),
  /** TablaFormasPago. */
  paymentMethods: row<Presence>('3', '3', '3', '0', '3', '0', '3', '3', '3', '3'),
  /**
   * Comprador. NOTES gives 1 for type 32 (the XSD has Comprador 1..1 with every
   * child optional); for the payload it is conditional: required data only at
   * MontoTotal ≥ 250,000.00 (NOTES §9).
   */
  buyer: row<Presence>('1', '2', '2', '2', '1', '0', '1', '1', '1', '3'),
  /** RNCComprador; 2 on 32 = required (or foreignId) at ≥ 250,000.00; other 2s depend on facts the payload lacks. */
  buyerRnc: row<Presence>('1', '2', '2', '2', '1', '0', '2', '1', '2', '0'),
  /** IdentificadorExtranjero. */
  buyerForeignId: row<Presence>('0', '2', '2', '2', '0', '0', '2', '0', '2', '3'),
  /** RazonSocialComprador; 2 on 32 = required at ≥ 250,000.00. */
  buyerName: row<Presence>('1', '2', '2', '2', '1', '0', '1', '1', '1', '3'),
  /** Retencion, per line. */
  retention: row<Presence>('2', '0', '2', '2', '1', '0', '0', '0', '0', '1'),
  /** InformacionReferencia. */
  reference: row<Presence>('2', '2', '1', '1', '2', '2', '2', '2', '2', '2'),
} as const;

export type AdditionalTaxRange = 'all' | 'otros' | 'none';
export type LineKind = 'good' | 'service';

export const TRANSPORT_BASIC = ['driver', 'transportDocument', 'vehicleId', 'plate', 'route', 'zone', 'deliveryNote'] as const;
export const TRANSPORT_EXPORT = ['via', 'originCountry', 'destinationAddress', 'destinationCountry', 'carrierRnc', 'carrierName', 'voyageNumber'] as const;
export type TransportField = (typeof TRANSPORT_BASIC)[number] | (typeof TRANSPORT_EXPORT)[number];

const ALL_TREATMENTS: readonly TaxTreatment[] = ['taxed', 'exempt', 'non_invoiceable'];
const ALL_RATES: readonly ItbisRate[] = [18, 16, 0];

/** What each type's XSD (and FMT's per-type line rules, NOTES §12.2) can carry. */
export const SCHEMA = {
  /** Item maxOccurs: 10,000 on 33 and 34, 1,000 elsewhere (32 included, see NOTES §9). */
  maxLines: row(1000, 1000, 10000, 10000, 1000, 1000, 1000, 1000, 1000, 1000),
  /**
   * Line treatments. FMT: 43, 44, 47 only exempt (4); 46 only 0 % (3).
   * Non-invoiceable lines need Totales/MontoNoFacturable, which 41, 43 and 47 lack.
   */
  lineTreatments: row<readonly TaxTreatment[]>(
    ALL_TREATMENTS, ALL_TREATMENTS, ALL_TREATMENTS, ALL_TREATMENTS, ['taxed', 'exempt'],
    ['exempt'], ['exempt', 'non_invoiceable'], ALL_TREATMENTS, ['taxed', 'non_invoiceable'], ['exempt'],
  ),
  itbisRates: row<readonly ItbisRate[]>(ALL_RATES, ALL_RATES, ALL_RATES, ALL_RATES, ALL_RATES, [], [], ALL_RATES, [0], []),
  defaultTreatment: row<TaxTreatment>('taxed', 'taxed', 'taxed', 'taxed', 'taxed', 'exempt', 'exempt', 'taxed', 'taxed', 'exempt'),
  defaultRate: row<ItbisRate>(18, 18, 18, 18, 18, 18, 18, 18, 0, 18),
  /** IndicadorBienoServicio: 47 only services (FMT p.37–38). */
  lineKinds: row<readonly LineKind[]>(
    ['good', 'service'], ['good', 'service'], ['good', 'service'], ['good', 'service'], ['good', 'service'],
    ['good', 'service'], ['good', 'service'], ['good', 'service'], ['good', 'service'], ['service'],
  ),
  /** Item/DescuentoMonto and RecargoMonto. */
  lineDiscounts: row(true, true, true, true, true, false, true, true, true, false),
  /** Item/TablaImpuestoAdicional; on 44 the header only has OtrosImpuestosAdicionales (codes 001–005). */
  additionalTaxes: row<AdditionalTaxRange>('all', 'all', 'all', 'all', 'none', 'none', 'otros', 'all', 'none', 'none'),
  /** Item/CantidadReferencia, UnidadReferencia, TablaSubcantidad, GradosAlcohol, PrecioUnitarioReferencia. */
  referenceDetails: row(true, true, true, true, false, false, false, true, false, false),
  /** Item/FechaElaboracion, FechaVencimientoItem. */
  itemDates: row(true, true, true, true, true, false, true, true, true, false),
  /** Item/Mineria (contract: 32/33/34/46). */
  mining: row(false, true, true, true, false, false, false, false, true, false),
  /** Item/Retencion/MontoITBISRetenido (47 has only MontoISRRetenido, which it requires). */
  itbisWithheld: row(true, false, true, true, true, false, false, false, false, false),
  isrWithheldRequired: row(false, false, false, false, false, false, false, false, false, true),
  /** DescuentosORecargos. */
  globalAdjustments: row(true, true, true, true, true, false, true, true, true, false),
  /** DescuentoORecargo/IndicadorNorma1007. */
  norm1007: row(true, true, true, true, false, false, false, true, false, false),
  /** Totales/MontoNoFacturable (document nonInvoiceableAmount and non-invoiceable lines). */
  nonInvoiceable: row(true, true, true, true, false, false, true, true, true, false),
  /** Emisor/CodigoVendedor. */
  sellerCode: row(true, true, true, true, false, false, true, true, true, false),
  /** Comprador's contact children (email, contact, address, municipality, province, additionalInfo). */
  buyerExtras: row(true, true, true, true, true, false, true, true, true, false),
  /** InformacionesAdicionales (shipping). */
  shipping: row(true, true, true, true, false, false, true, true, true, false),
  /** The export children of InformacionesAdicionales (shipping.export). */
  exportShipping: row(false, false, false, false, false, false, false, false, true, false),
  /** Transporte children that exist. */
  transport: row<readonly TransportField[]>(
    TRANSPORT_BASIC, TRANSPORT_BASIC, TRANSPORT_BASIC, TRANSPORT_BASIC, [], [], TRANSPORT_BASIC, TRANSPORT_BASIC,
    [...TRANSPORT_BASIC, ...TRANSPORT_EXPORT], ['destinationCountry'],
  ),
} as const;

/** Tabla II, currency codes of the XSD TipoMonedaType (CHY is DGII's yuan, SCP is in the list as is). */
export const CURRENCIES = [
  'BRL', 'CAD', 'CHF', 'CHY', 'XDR', 'DKK', 'EUR', 'GBP', 'JPY', 'NOK', 'SCP', 'SEK', 'USD', 'VEF', 'HTG', 'MXN', 'COP',
] as const;

/** UnidadMedidaType: codes 1 to 62. */
export const isUnitCode = (v: string): boolean => /^[1-9]\d?$/.test(v) && Number(v) <= 62;

/** Tabla I ranges (NOTES §12.4). */
export const TAX_CODE = {
  otros: /^00[1-5]$/, // 001–005: tip, CDT, insurance, telecom, first plate
  especifico: /^0(0[6-9]|1\d|2[0-2])$/, // 006–022
  alcoholEspecifico: /^0(0[6-9]|1[0-8])$/, // 006–018
  advalorem: /^0(2[3-9]|3\d)$/, // 023–039
} as const;

/** Payment form 5 (bonds, gift certificates) only in type 32 (FMT p.9). */
export const GIFT_CERTIFICATE_TYPES: readonly EcfType[] = [32];
/** CodigoModificacion 5 (references a consumer e-CF) only when issuing a 31. */
export const MODIFICATION_5_TYPES: readonly EcfType[] = [31];
/** MontoTotal from which a type 32 needs the buyer and goes in full to the authority (NOTES §9, §12.6 rule 9). */
export const CONSUMER_THRESHOLD = '250000.00';
