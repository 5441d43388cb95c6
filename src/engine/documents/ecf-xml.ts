import { Dec, fixed, money } from '../money.js';
import { KEEP_EMPTY, type XmlData } from '../xml/canonical.js';
import type { EcfType } from './payload.js';
import type { ComputedDocument, Totals } from './totals.js';
import { computeForeignTotals, type ForeignTotalKey } from './totals.js';
import type { NormalizedDocument, NormalizedLine } from './model.js';

/**
 * Maps a validated payload and its computed totals to the element data of
 * the authority's e-CF schema. Element order, omission of absent values and
 * escaping are the serializer's (xml/canonical.ts); here only names, values
 * and the authority's formats: amounts with two decimals, prices with two to
 * four, dates dd-MM-yyyy. Fields a type's schema lacks are never set, because
 * validation refused them.
 */

export interface Issuer {
  readonly rnc: string;
  readonly legalName: string;
  readonly tradeName: string | null;
  readonly address: string;
  readonly municipality: string | null;
  readonly province: string | null;
  readonly phones: readonly string[];
  readonly email: string | null;
  readonly economicActivity: string | null;
}

export interface Numbering {
  readonly encf: string;
  /** YYYY-MM-DD; null for 32 and 34. */
  readonly sequenceExpiresOn: string | null;
}

/** YYYY-MM-DD -> dd-MM-yyyy */
export const xmlDate = (iso: string): string => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;

/** Two to four decimals: 150 -> 150.00, 0.3350 -> 0.335. */
export function price(d: Dec): string {
  const four = d.decimalPlaces() > 4 ? d.toDecimalPlaces(4, Dec.ROUND_HALF_UP) : d;
  return fixed(four, Math.max(2, four.decimalPlaces()));
}
const opt = (d: Dec | null | undefined) => (d === null || d === undefined ? undefined : money(d));
const quantity = money;
/** For the XSD's "greater than zero" amounts: a zero is left out. */
const positive = (d: Dec | undefined) => (d === undefined || d.lte(0) ? undefined : money(d));

/** Types whose schema carries IndicadorMontoGravado. */
const HAS_AMOUNT_INDICATOR: ReadonlySet<EcfType> = new Set([31, 32, 33, 34, 41, 45]);

function idDoc(doc: NormalizedDocument, numbering: Numbering, pages: number): XmlData {
  const reference = doc.command.reference;
  let creditNoteIndicator: string | undefined;
  if (doc.type === 34 && reference?.modifiedNcfDate) {
    const days = (Date.parse(doc.issueDate) - Date.parse(reference.modifiedNcfDate)) / 86_400_000;
    creditNoteIndicator = days > 30 ? '1' : '0';
  }
  return {
    TipoeCF: String(doc.type),
    eNCF: numbering.encf,
    FechaVencimientoSecuencia: numbering.sequenceExpiresOn ? xmlDate(numbering.sequenceExpiresOn) : undefined,
    IndicadorNotaCredito: creditNoteIndicator,
    IndicadorEnvioDiferido: doc.deferredDelivery ? '1' : undefined,
    IndicadorMontoGravado: HAS_AMOUNT_INDICATOR.has(doc.type) ? (doc.totalsInput.pricesIncludeTax ? '1' : '0') : undefined,
    TipoIngresos: doc.incomeType ?? undefined,
    TipoPago: doc.paymentCondition ?? undefined,
    FechaLimitePago: doc.paymentDueDate ? xmlDate(doc.paymentDueDate) : undefined,
    TablaFormasPago: doc.paymentMethods.length
      ? { FormaDePago: doc.paymentMethods.map((m) => ({ FormaPago: m.type, MontoPago: money(m.amount) })) }
      : undefined,
    TotalPaginas: pages >= 2 ? String(pages) : undefined,
  };
}

function emisor(doc: NormalizedDocument, issuer: Issuer): XmlData {
  const c = doc.command;
  return {
    RNCEmisor: issuer.rnc,
    RazonSocialEmisor: issuer.legalName,
    NombreComercial: issuer.tradeName,
    DireccionEmisor: issuer.address,
    Municipio: issuer.municipality,
    Provincia: issuer.province,
    TablaTelefonoEmisor: issuer.phones.length ? { TelefonoEmisor: issuer.phones } : undefined,
    CorreoEmisor: issuer.email,
    ActividadEconomica: issuer.economicActivity,
    CodigoVendedor: c.sellerCode,
    NumeroFacturaInterna: c.internalNumber,
    InformacionAdicionalEmisor: c.additionalInfo?.issuer,
    FechaEmision: xmlDate(doc.issueDate),
  };
}

function comprador(doc: NormalizedDocument): XmlData | undefined {
  const b = doc.command.buyer;
  // The 32 schema demands Comprador even for an anonymous consumer: an empty one is its only valid form.
  if (!b) return doc.type === 32 ? KEEP_EMPTY : undefined;
  return {
    RNCComprador: b.rnc,
    IdentificadorExtranjero: b.foreignId,
    RazonSocialComprador: b.name,
    ContactoComprador: b.contact,
    CorreoComprador: b.email,
    DireccionComprador: b.address,
    MunicipioComprador: b.municipality,
    ProvinciaComprador: b.province,
    InformacionAdicionalComprador: b.additionalInfo ?? doc.command.additionalInfo?.buyer,
  };
}

function informacionesAdicionales(doc: NormalizedDocument): XmlData | undefined {
  const s = doc.command.shipping;
  if (!s) return undefined;
  const e = s.export;
  const dec = (v: number | string | null | undefined) => (v === null || v === undefined ? undefined : money(new Dec(String(v))));
  return {
    FechaEmbarque: s.shipmentDate ? xmlDate(s.shipmentDate) : undefined,
    NumeroEmbarque: s.shipmentNumber,
    NumeroContenedor: s.containerNumber,
    NumeroReferencia: s.referenceNumber,
    NombrePuertoEmbarque: e?.loadingPortName,
    CondicionesEntrega: e?.deliveryTerms,
    TotalFob: dec(e?.totalFob),
    Seguro: dec(e?.insurance),
    Flete: dec(e?.freight),
    OtrosGastos: dec(e?.otherCharges),
    TotalCif: dec(e?.totalCif),
    RegimenAduanero: e?.customsRegime,
    NombrePuertoSalida: e?.departurePortName,
    NombrePuertoDesembarque: e?.unloadingPortName,
    PesoBruto: dec(s.grossWeight),
    PesoNeto: dec(s.netWeight),
    UnidadPesoBruto: s.grossWeightUnit,
    UnidadPesoNeto: s.netWeightUnit,
    CantidadBulto: dec(s.packageCount),
    UnidadBulto: s.packageUnit,
    VolumenBulto: dec(s.volume),
    UnidadVolumen: s.volumeUnit,
  };
}

function transporte(doc: NormalizedDocument): XmlData | undefined {
  const t = doc.command.transport;
  if (!t) return undefined;
  return {
    ViaTransporte: t.via,
    PaisOrigen: t.originCountry,
    DireccionDestino: t.destinationAddress,
    PaisDestino: t.destinationCountry,
    RNCIdentificacionCompaniaTransportista: t.carrierRnc,
    NombreCompaniaTransportista: t.carrierName,
    NumeroViaje: t.voyageNumber,
    Conductor: t.driver,
    DocumentoTransporte: t.transportDocument,
    Ficha: t.vehicleId,
    Placa: t.plate,
    RutaTransporte: t.route,
    ZonaTransporte: t.zone,
    NumeroAlbaran: t.deliveryNote,
  };
}

export function totales(t: Totals): XmlData {
  return {
    MontoGravadoTotal: opt(t.montoGravadoTotal),
    MontoGravadoI1: opt(t.montoGravadoI1),
    MontoGravadoI2: opt(t.montoGravadoI2),
    MontoGravadoI3: opt(t.montoGravadoI3),
    MontoExento: opt(t.montoExento),
    ITBIS1: t.itbis1 === undefined ? undefined : String(t.itbis1),
    ITBIS2: t.itbis2 === undefined ? undefined : String(t.itbis2),
    ITBIS3: t.itbis3 === undefined ? undefined : String(t.itbis3),
    TotalITBIS: opt(t.totalItbis),
    TotalITBIS1: opt(t.totalItbis1),
    TotalITBIS2: opt(t.totalItbis2),
    TotalITBIS3: opt(t.totalItbis3),
    // The XSD wants it above zero: additional taxes that round to nothing leave it out.
    MontoImpuestoAdicional: positive(t.montoImpuestoAdicional),
    ImpuestosAdicionales: t.impuestosAdicionales.length
      ? {
          ImpuestoAdicional: t.impuestosAdicionales.map((i) => ({
            TipoImpuesto: i.code,
            TasaImpuestoAdicional: money(i.rate),
            MontoImpuestoSelectivoConsumoEspecifico: i.especifico.isZero() ? undefined : money(i.especifico),
            MontoImpuestoSelectivoConsumoAdvalorem: i.advalorem.isZero() ? undefined : money(i.advalorem),
            OtrosImpuestosAdicionales: i.otros.isZero() ? undefined : money(i.otros),
          })),
        }
      : undefined,
    MontoTotal: money(t.montoTotal),
    MontoNoFacturable: opt(t.montoNoFacturable),
    MontoPeriodo: opt(t.montoPeriodo),
    ValorPagar: money(t.valorPagar),
    TotalITBISRetenido: opt(t.totalItbisRetenido),
    TotalISRRetencion: opt(t.totalIsrRetencion),
  };
}

function otraMoneda(doc: NormalizedDocument, t: Totals): XmlData | undefined {
  const fc = doc.command.foreignCurrency;
  if (!fc) return undefined;
  const rate = new Dec(String(fc.exchangeRate));
  const supplied = Object.fromEntries(
    Object.entries(fc.totals ?? {})
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, new Dec(String(v))]),
  ) as Partial<Record<ForeignTotalKey, Dec>>;
  const f = computeForeignTotals(t, rate, supplied);
  return {
    TipoMoneda: fc.currency,
    TipoCambio: rate.toDecimalPlaces(4).toFixed(Math.max(2, Math.min(4, rate.decimalPlaces()))),
    MontoGravadoTotalOtraMoneda: opt(f.montoGravadoTotal),
    MontoGravado1OtraMoneda: opt(f.montoGravadoI1),
    MontoGravado2OtraMoneda: opt(f.montoGravadoI2),
    MontoGravado3OtraMoneda: opt(f.montoGravadoI3),
    MontoExentoOtraMoneda: opt(f.montoExento),
    TotalITBISOtraMoneda: opt(f.totalItbis),
    TotalITBIS1OtraMoneda: opt(f.totalItbis1),
    TotalITBIS2OtraMoneda: opt(f.totalItbis2),
    TotalITBIS3OtraMoneda: opt(f.totalItbis3),
    MontoImpuestoAdicionalOtraMoneda: positive(f.montoImpuestoAdicional),
    MontoTotalOtraMoneda: opt(f.montoTotal),
  };
}

function item(doc: NormalizedDocument, line: NormalizedLine, computed: ComputedDocument['lines'][number], n: number): XmlData {
  const d = line.details;
  const r = line.retention;
  const fc = line.foreignCurrency;
  const rate = doc.command.foreignCurrency ? new Dec(String(doc.command.foreignCurrency.exchangeRate)) : null;
  return {
    NumeroLinea: String(n),
    TablaCodigosItem: line.codes.length ? { CodigosItem: line.codes.map((c) => ({ TipoCodigo: c.type, CodigoItem: c.value })) } : undefined,
    IndicadorFacturacion: String(computed.indicator),
    Retencion: r
      ? {
          IndicadorAgenteRetencionoPercepcion: r.agent,
          MontoITBISRetenido: opt(r.itbisWithheld),
          MontoISRRetenido: opt(r.isrWithheld),
        }
      : undefined,
    NombreItem: line.name,
    IndicadorBienoServicio: line.kind === 'service' ? '2' : '1',
    DescripcionItem: line.description,
    CantidadItem: quantity(line.quantity),
    UnidadMedida: line.unitOfMeasure,
    CantidadReferencia: d?.referenceQuantity ? quantity(d.referenceQuantity) : undefined,
    UnidadReferencia: d?.referenceUnit,
    TablaSubcantidad: d?.subquantities.length
      ? { SubcantidadItem: d.subquantities.map((s) => ({ Subcantidad: s.quantity.toDecimalPlaces(3).toFixed(3), CodigoSubcantidad: s.unitCode })) }
      : undefined,
    GradosAlcohol: d?.alcoholDegrees ? money(d.alcoholDegrees) : undefined,
    PrecioUnitarioReferencia: d?.referenceUnitPrice ? money(d.referenceUnitPrice) : undefined,
    FechaElaboracion: d?.manufactureDate ? xmlDate(d.manufactureDate) : undefined,
    FechaVencimientoItem: d?.expiryDate ? xmlDate(d.expiryDate) : undefined,
    Mineria: d?.mining
      ? {
          PesoNetoKilogramo: opt(d.mining.netWeightKilogram),
          PesoNetoMineria: opt(d.mining.netWeightMining),
          TipoAfiliacion: d.mining.affiliationType === null ? undefined : String(d.mining.affiliationType),
          Liquidacion: d.mining.settlement === null ? undefined : String(d.mining.settlement),
        }
      : undefined,
    PrecioUnitarioItem: price(computed.unitPrice),
    DescuentoMonto: computed.discount.isZero() ? undefined : money(computed.discount),
    TablaSubDescuento: computed.discount.isZero() ? undefined : { SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: money(computed.discount) }] },
    RecargoMonto: computed.surcharge.isZero() ? undefined : money(computed.surcharge),
    TablaSubRecargo: computed.surcharge.isZero() ? undefined : { SubRecargo: [{ TipoSubRecargo: '$', MontoSubRecargo: money(computed.surcharge) }] },
    TablaImpuestoAdicional: line.additionalTaxes.length ? { ImpuestoAdicional: line.additionalTaxes.map((t) => ({ TipoImpuesto: t.code })) } : undefined,
    OtraMonedaDetalle: rate
      ? {
          PrecioOtraMoneda: price(fc?.unitPrice ?? computed.unitPrice.div(rate)),
          DescuentoOtraMoneda: fc?.discount ? money(fc.discount) : computed.discount.isZero() ? undefined : money(computed.discount.div(rate)),
          RecargoOtraMoneda: fc?.surcharge ? money(fc.surcharge) : computed.surcharge.isZero() ? undefined : money(computed.surcharge.div(rate)),
          MontoItemOtraMoneda: money(fc?.lineAmount ?? computed.amount.div(rate)),
        }
      : undefined,
    MontoItem: money(computed.amount),
  };
}

const decimalText = (v: number | string | null | undefined) => (v === null || v === undefined ? undefined : money(new Dec(String(v))));

function subtotales(doc: NormalizedDocument): XmlData | undefined {
  const s = doc.command.subtotals;
  if (!s?.length) return undefined;
  return {
    Subtotal: s.map((x) => ({
      NumeroSubTotal: x.number === null || x.number === undefined ? undefined : String(x.number),
      DescripcionSubtotal: x.description,
      Orden: x.order === null || x.order === undefined ? undefined : String(x.order),
      SubTotalMontoGravadoTotal: decimalText(x.montoGravadoTotal),
      SubTotalMontoGravadoI1: decimalText(x.montoGravadoI1),
      SubTotalMontoGravadoI2: decimalText(x.montoGravadoI2),
      SubTotalMontoGravadoI3: decimalText(x.montoGravadoI3),
      SubTotaITBIS: decimalText(x.totalItbis),
      SubTotaITBIS1: decimalText(x.itbis1),
      SubTotaITBIS2: decimalText(x.itbis2),
      SubTotaITBIS3: decimalText(x.itbis3),
      SubTotalImpuestoAdicional: decimalText(x.montoImpuestoAdicional),
      SubTotalExento: decimalText(x.montoExento),
      MontoSubTotal: decimalText(x.amount),
      Lineas: x.lines === null || x.lines === undefined ? undefined : String(x.lines),
    })),
  };
}

function paginacion(doc: NormalizedDocument): XmlData | undefined {
  const p = doc.command.pagination;
  if (!p?.length) return undefined;
  return {
    Pagina: p.map((x) => ({
      PaginaNo: x.number === null || x.number === undefined ? undefined : String(x.number),
      NoLineaDesde: x.lineFrom === null || x.lineFrom === undefined ? undefined : String(x.lineFrom),
      NoLineaHasta: x.lineTo === null || x.lineTo === undefined ? undefined : String(x.lineTo),
      SubtotalMontoGravadoPagina: decimalText(x.montoGravadoTotal),
      SubtotalMontoGravado1Pagina: decimalText(x.montoGravadoI1),
      SubtotalMontoGravado2Pagina: decimalText(x.montoGravadoI2),
      SubtotalMontoGravado3Pagina: decimalText(x.montoGravadoI3),
      SubtotalExentoPagina: decimalText(x.montoExento),
      SubtotalItbisPagina: decimalText(x.totalItbis),
      SubtotalItbis1Pagina: decimalText(x.itbis1),
      SubtotalItbis2Pagina: decimalText(x.itbis2),
      SubtotalItbis3Pagina: decimalText(x.itbis3),
      SubtotalImpuestoAdicionalPagina: decimalText(x.montoImpuestoAdicional),
      SubtotalImpuestoAdicional:
        x.iscEspecifico !== undefined && x.iscEspecifico !== null || x.otrosImpuestos !== undefined && x.otrosImpuestos !== null
          ? {
              SubtotalImpuestoSelectivoConsumoEspecificoPagina: decimalText(x.iscEspecifico),
              SubtotalOtrosImpuesto: decimalText(x.otrosImpuestos),
            }
          : undefined,
      MontoSubtotalPagina: decimalText(x.amount),
      SubtotalMontoNoFacturablePagina: decimalText(x.nonInvoiceableAmount),
    })),
  };
}

/**
 * FMT section D, fields 5 to 8: ValorDescuentooRecargo is the percentage
 * (3 integer digits) and exists only for TipoValor "%"; the amount, of either
 * kind, goes in MontoDescuentooRecargo, and in the other currency beside it.
 */
function descuentosORecargos(doc: NormalizedDocument, computed: ComputedDocument): XmlData | undefined {
  const source = doc.command.globalAdjustments ?? [];
  if (!computed.adjustments.length) return undefined;
  const fc = doc.command.foreignCurrency;
  const rate = fc ? new Dec(String(fc.exchangeRate)) : null;
  return {
    DescuentoORecargo: computed.adjustments.map((a, i) => {
      const given = source[i];
      const pct = a.percentage;
      return {
        NumeroLinea: String(given?.line ?? i + 1),
        TipoAjuste: a.kind === 'discount' ? 'D' : 'R',
        IndicadorNorma1007: a.norm1007 ? '1' : undefined,
        DescripcionDescuentooRecargo: given?.description,
        TipoValor: pct ? '%' : '$',
        ValorDescuentooRecargo: pct ? money(pct) : undefined,
        MontoDescuentooRecargo: money(a.amount),
        MontoDescuentooRecargoOtraMoneda: rate ? money(a.amount.div(rate)) : undefined,
        IndicadorFacturacionDescuentooRecargo: String(a.indicator),
      };
    }),
  };
}

function informacionReferencia(doc: NormalizedDocument): XmlData | undefined {
  const r = doc.command.reference;
  if (!r) return undefined;
  return {
    NCFModificado: r.modifiedNcf,
    RNCOtroContribuyente: r.otherIssuerRnc,
    FechaNCFModificado: r.modifiedNcfDate ? xmlDate(r.modifiedNcfDate) : undefined,
    CodigoModificacion: r.modificationCode,
  };
}

/** The e-CF's element data, without the Signature. `signedAt` is FechaHoraFirma (dd-MM-yyyy HH:mm:ss). */
export function ecfData(doc: NormalizedDocument, computed: ComputedDocument, issuer: Issuer, numbering: Numbering, signedAt: string): XmlData {
  return {
    Encabezado: {
      Version: '1.0',
      IdDoc: idDoc(doc, numbering, doc.command.pagination?.length ?? 0),
      Emisor: emisor(doc, issuer),
      Comprador: comprador(doc),
      InformacionesAdicionales: informacionesAdicionales(doc),
      Transporte: transporte(doc),
      Totales: totales(computed.totals),
      OtraMoneda: otraMoneda(doc, computed.totals),
    },
    DetallesItems: { Item: doc.lines.map((l, i) => item(doc, l, computed.lines[i]!, i + 1)) },
    Subtotales: subtotales(doc),
    DescuentosORecargos: descuentosORecargos(doc, computed),
    Paginacion: paginacion(doc),
    InformacionReferencia: informacionReferencia(doc),
    FechaHoraFirma: signedAt,
  };
}
