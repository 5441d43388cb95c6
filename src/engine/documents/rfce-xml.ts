import { money } from '../money.js';
import { KEEP_EMPTY, type XmlData } from '../xml/canonical.js';
import { CONSUMER_THRESHOLD } from './matrix.js';
import type { Totals } from './totals.js';

/**
 * The RFCE, the signed summary of a type-32 invoice under DOP 250,000
 * (NOTES §9), built from the full e-CF's element data so both say the same
 * thing. It leaves out rates, other currency and lines; it carries the
 * security code of the signed full e-CF.
 */

/** Strictly below DOP 250,000.00 (at exactly 250,000.00 the full e-CF goes to the authority). */
export const takesRfce = (type: number, totals: Totals): boolean => type === 32 && totals.montoTotal.lt(CONSUMER_THRESHOLD);

export function rfceData(ecf: XmlData, totals: Totals, securityCode: string): XmlData {
  const header = ecf.Encabezado as XmlData;
  const id = header.IdDoc as XmlData;
  const issuer = header.Emisor as XmlData;
  const buyer = (header.Comprador as XmlData | undefined) ?? {};
  const t = header.Totales as XmlData;
  const hasBuyer = [buyer.RNCComprador, buyer.IdentificadorExtranjero, buyer.RazonSocialComprador].some((v) => v);
  return {
    Encabezado: {
      Version: '1.0',
      IdDoc: { TipoeCF: id.TipoeCF, eNCF: id.eNCF, TipoIngresos: id.TipoIngresos, TipoPago: id.TipoPago, TablaFormasPago: id.TablaFormasPago },
      Emisor: { RNCEmisor: issuer.RNCEmisor, RazonSocialEmisor: issuer.RazonSocialEmisor, FechaEmision: issuer.FechaEmision },
      // The schema demands Comprador even for an anonymous buyer; an empty one is the only valid form.
      Comprador: hasBuyer
        ? { RNCComprador: buyer.RNCComprador, IdentificadorExtranjero: buyer.IdentificadorExtranjero, RazonSocialComprador: buyer.RazonSocialComprador }
        : KEEP_EMPTY,
      Totales: {
        MontoGravadoTotal: t.MontoGravadoTotal,
        MontoGravadoI1: t.MontoGravadoI1,
        MontoGravadoI2: t.MontoGravadoI2,
        MontoGravadoI3: t.MontoGravadoI3,
        MontoExento: t.MontoExento,
        TotalITBIS: t.TotalITBIS,
        TotalITBIS1: t.TotalITBIS1,
        TotalITBIS2: t.TotalITBIS2,
        TotalITBIS3: t.TotalITBIS3,
        MontoImpuestoAdicional: t.MontoImpuestoAdicional,
        ImpuestosAdicionales: totals.impuestosAdicionales.length
          ? {
              ImpuestoAdicional: totals.impuestosAdicionales.map((i) => ({
                TipoImpuesto: i.code,
                MontoImpuestoSelectivoConsumoEspecifico: i.especifico.isZero() ? undefined : money(i.especifico),
                MontoImpuestoSelectivoConsumoAdvalorem: i.advalorem.isZero() ? undefined : money(i.advalorem),
                OtrosImpuestosAdicionales: i.otros.isZero() ? undefined : money(i.otros),
              })),
            }
          : undefined,
        MontoTotal: t.MontoTotal,
        MontoNoFacturable: t.MontoNoFacturable,
        MontoPeriodo: t.MontoPeriodo,
      },
      CodigoSeguridadeCF: securityCode,
    },
  };
}
