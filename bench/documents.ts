// The document the signing bench signs: a canonical e-CF 31 of about 5 KB.
export function benchDocument(): { name: string; canonical: string } {
  const items = Array.from({ length: 12 }, (_, i) =>
    `<Item><NumeroLinea>${i + 1}</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Artículo de ferretería número ${i + 1} con ñ &amp; más</NombreItem><IndicadorBienoServicio>1</IndicadorBienoServicio><CantidadItem>2.00</CantidadItem><PrecioUnitarioItem>150.0000</PrecioUnitarioItem><MontoItem>300.00</MontoItem></Item>`,
  ).join('');
  const canonical =
    `<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF><FechaVencimientoSecuencia>31-12-2026</FechaVencimientoSecuencia><TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago></IdDoc>` +
    `<Emisor><RNCEmisor>131234567</RNCEmisor><RazonSocialEmisor>Ferretería Ñoño SRL</RazonSocialEmisor><DireccionEmisor>Calle El Conde 12</DireccionEmisor><FechaEmision>10-03-2026</FechaEmision></Emisor>` +
    `<Comprador><RNCComprador>101010101</RNCComprador><RazonSocialComprador>Constructora Ejemplo SRL</RazonSocialComprador></Comprador>` +
    `<Totales><MontoGravadoTotal>3600.00</MontoGravadoTotal><MontoGravadoI1>3600.00</MontoGravadoI1><ITBIS1>18</ITBIS1><TotalITBIS>648.00</TotalITBIS><TotalITBIS1>648.00</TotalITBIS1><MontoTotal>4248.00</MontoTotal></Totales></Encabezado>` +
    `<DetallesItems>${items}</DetallesItems><FechaHoraFirma>10-03-2026 10:00:00</FechaHoraFirma></ECF>`;
  return { name: 'e-CF 31, 12 lines (synthetic)', canonical };
}
