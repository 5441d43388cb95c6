/**
 * The 14 Pasos of the authority's certification portal (CERTIFICATION.md
 * §1.2), with what the appliance does for each and what the person must do
 * in the portal, where no interface other than the web page exists (§9).
 */

export type PasoNumber = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14;

export interface Paso {
  readonly paso: PasoNumber;
  /** The portal's heading. */
  readonly title: string;
  /** What the appliance does; null when it can do nothing. */
  readonly appliance: string | null;
  /** What the person does in the portal; null when nothing. */
  readonly person: string | null;
  /** The command that does the appliance's part. */
  readonly command: string | null;
}

export const PASOS: readonly Paso[] = [
  {
    paso: 1,
    title: 'Formulario de postulación',
    appliance: 'signs the XML the portal generates (enveloped signature, the tenant’s certificate)',
    person: 'fill in the form, press "Generar archivo", upload the signed file',
    command: 'ecf certify sign <file.xml>',
  },
  {
    paso: 2,
    title: 'Pruebas de Datos e-CF',
    appliance: 'reads the workbook, builds each e-CF verbatim from its row, signs, checks against the XSD, sends in a valid order, polls verdicts; writes the 4 full consumo XMLs to upload',
    person: 'download the workbook ("DESCARGAR COMPROBANTES"); upload the 4 consumo XMLs in the "Facturas de consumo < 250Mil" box',
    command: 'ecf certify import <paso2.xlsx>, then ecf certify run',
  },
  {
    paso: 3,
    title: 'Pruebas de Datos Aprobaciones Comerciales',
    appliance: 'reads the workbook and sends each commercial approval signed as the buyer, exactly as given',
    person: 'download the workbook ("DESCARGAR APROBACIONES COMERCIALES")',
    command: 'ecf certify import <paso3.xlsx>, then ecf certify run',
  },
  {
    paso: 4,
    title: 'Pruebas de Simulación e-CF',
    appliance: 'issues the quota of e-CF per type through the normal issuing path, with new e-NCF',
    person: 'upload the full consumo XMLs of the simulation in the portal',
    command: 'ecf certify simulate',
  },
  {
    paso: 5,
    title: 'Pruebas de Simulación Representación Impresa',
    appliance: 'renders the printed representation of one simulation e-CF per slot (11 PDFs, 10 MB in all)',
    person: 'upload the 11 PDFs and press "ENVIAR ARCHIVOS"',
    command: 'ecf certify print',
  },
  { paso: 6, title: 'Validación de la Representación Impresa', appliance: null, person: 'wait for "Representación Impresa Aprobada"', command: null },
  {
    paso: 7,
    title: 'URL Servicio de Prueba',
    appliance: 'checks that the receiver answers authentication, reception and commercial approval, and shows the URLs to type',
    person: 'type the URLs and press "CONFIRMAR URLS"',
    command: 'ecf certify receiver --url https://<host>',
  },
  { paso: 8, title: 'Inicio Prueba Recepción e-CF', appliance: null, person: 'press "ENVIAR PRUEBA DE COMPROBANTES" while `ecf serve` runs', command: null },
  {
    paso: 9,
    title: 'Recepción e-CF',
    appliance: 'answers each e-CF the authority sends with a signed ARECF, and reports what arrived',
    person: null,
    command: 'ecf serve; ecf certify status',
  },
  { paso: 10, title: 'Inicio Prueba Aprobaciones Comerciales', appliance: null, person: 'press "ENVIAR PRUEBA DE APROBACIONES COMERCIALES"', command: null },
  {
    paso: 11,
    title: 'Recepción Aprobaciones Comerciales',
    appliance: 'answers each commercial approval the authority sends, and reports what arrived',
    person: null,
    command: 'ecf serve; ecf certify status',
  },
  { paso: 12, title: 'URL Servicios Producción', appliance: null, person: 'type the production URLs and press "CONFIRMAR URLS"', command: null },
  {
    paso: 13,
    title: 'Declaración Jurada',
    appliance: 'signs the XML the portal generates with the representative’s certificate',
    person: 'press "GENERAR ARCHIVO", then upload the signed file ("ENVIAR ARCHIVO")',
    command: 'ecf certify sign <file.xml>',
  },
  { paso: 14, title: 'Verificación Estatus del contribuyente', appliance: null, person: 'wait for the authority to check the RNC', command: null },
];

export const pasoOf = (n: number): Paso | undefined => PASOS.find((p) => p.paso === n);
