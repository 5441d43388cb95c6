import type { XmlData } from '../../../src/engine/xml/canonical.js';

/**
 * Test documents. Shapes only: the amounts are plausible strings, not
 * computed totals.
 */

/** An element the DGII schemas accept in the trailing xs:any (processContents="skip"). */
export const DUMMY_SIGNATURE = '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"></Signature>';

/** Puts a signature-shaped element where signing would: as the root's last child. */
export function withDummySignature(xml: string): string {
  const close = xml.lastIndexOf('</');
  return xml.slice(0, close) + DUMMY_SIGNATURE + xml.slice(close);
}

/** One line of an e-CF 31-shaped invoice, with the optional parts a real line often has. */
export function ecf31Item(n: number): XmlData {
  return {
    NumeroLinea: String(n),
    TablaCodigosItem: { CodigosItem: [{ TipoCodigo: 'EAN', CodigoItem: `74${String(n).padStart(11, '0')}` }] },
    IndicadorFacturacion: '1',
    NombreItem: `Tornillo galvanizado ${n} & tuerca "½" <caja>`,
    IndicadorBienoServicio: '1',
    DescripcionItem: `Artículo de ferretería número ${n}, año 2026`,
    CantidadItem: '12.00',
    UnidadMedida: '43',
    PrecioUnitarioItem: '150.0000',
    DescuentoMonto: '10.00',
    TablaSubDescuento: { SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: '10.00' }] },
    MontoItem: '1790.00',
  };
}

/** An e-CF 31 (crédito fiscal) with `lines` item lines; keys deliberately not in schema order. */
export function ecf31(lines = 1): XmlData {
  return {
    FechaHoraFirma: '15-01-2026 12:00:00',
    DetallesItems: { Item: Array.from({ length: lines }, (_, i) => ecf31Item(i + 1)) },
    Encabezado: {
      Totales: {
        MontoTotal: (1790 * lines * 1.18).toFixed(2),
        TotalITBIS: (1790 * lines * 0.18).toFixed(2),
        ITBIS1: '18',
        TotalITBIS1: (1790 * lines * 0.18).toFixed(2),
        MontoGravadoI1: (1790 * lines).toFixed(2),
        MontoGravadoTotal: (1790 * lines).toFixed(2),
      },
      Comprador: { RazonSocialComprador: 'Constructora Peña & Asociados SRL', RNCComprador: '131880681' },
      Emisor: {
        RNCEmisor: '130862346',
        RazonSocialEmisor: 'Ferretería Ñoño SRL',
        NombreComercial: 'Ferretería Ñoño',
        DireccionEmisor: 'Calle El Conde 12, Zona Colonial',
        TablaTelefonoEmisor: { TelefonoEmisor: ['809-555-1234', '809-555-9876'] },
        CorreoEmisor: 'caja@ferreteria.do',
        FechaEmision: '15-01-2026',
      },
      IdDoc: {
        TipoeCF: '31',
        eNCF: 'E310000000001',
        FechaVencimientoSecuencia: '31-12-2027',
        TipoIngresos: '01',
        TipoPago: '1',
        TablaFormasPago: { FormaDePago: [{ FormaPago: '1', MontoPago: (1790 * lines * 1.18).toFixed(2) }] },
      },
      Version: '1.0',
    },
  };
}

export const ARECF: XmlData = {
  DetalleAcusedeRecibo: {
    Version: '1.0',
    RNCEmisor: '130862346',
    RNCComprador: '131880681',
    eNCF: 'E310000000001',
    Estado: '0',
    FechaHoraAcuseRecibo: '15-01-2026 12:05:00',
  },
};

export const RFCE: XmlData = {
  Encabezado: {
    Version: '1.0',
    IdDoc: { TipoeCF: '32', eNCF: 'E320000000007', TipoIngresos: '01', TipoPago: '1' },
    Emisor: { RNCEmisor: '130862346', RazonSocialEmisor: 'Ferretería Ñoño SRL', FechaEmision: '15-01-2026' },
    Comprador: { RazonSocialComprador: 'María José Núñez' },
    Totales: { MontoExento: '500.00', MontoTotal: '500.00' },
    CodigoSeguridadeCF: 'a1B2c3',
  },
};

export const XMLNS_XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const XMLNS_XSD = 'http://www.w3.org/2001/XMLSchema';
