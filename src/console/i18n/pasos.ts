import type { Paso, PasoNumber } from '../../engine/certification/index.js';
import type { Lang } from './index.js';

/**
 * The certification checklist in Spanish. The engine's Paso titles are the
 * DGII portal's own headings (Spanish in both languages: they name what the
 * person sees on the portal); what the appliance and the person do is
 * English in the engine (the CLI's words), so Spanish pages say it from here,
 * keyed by Paso number. Buttons stay quoted as the portal labels them.
 */
const ES: Record<PasoNumber, { readonly appliance: string | null; readonly person: string | null }> = {
  1: { appliance: 'firma el XML que genera el portal (firma envuelta, con el certificado del contribuyente)', person: 'llene el formulario, pulse "Generar archivo" y cargue el archivo firmado' },
  2: {
    appliance: 'lee el libro de Excel, arma cada e-CF tal como viene en su fila, lo firma, lo valida contra el XSD, lo envía en un orden válido y consulta los resultados; escribe los 4 XML completos de consumo que se cargan',
    person: 'descargue el libro ("DESCARGAR COMPROBANTES"); cargue los 4 XML de consumo en la casilla "Facturas de consumo < 250Mil"',
  },
  3: { appliance: 'lee el libro y envía cada aprobación comercial firmada como comprador, tal como viene', person: 'descargue el libro ("DESCARGAR APROBACIONES COMERCIALES")' },
  4: { appliance: 'emite la cuota de e-CF de cada tipo por la vía normal de emisión, con e-NCF nuevos', person: 'cargue en el portal los XML completos de consumo de la simulación' },
  5: { appliance: 'genera la representación impresa de un e-CF de la simulación por casilla (11 PDF, 10 MB en total)', person: 'cargue los 11 PDF y pulse "ENVIAR ARCHIVOS"' },
  6: { appliance: null, person: 'espere "Representación Impresa Aprobada"' },
  7: { appliance: 'comprueba que el receptor responde a la autenticación, la recepción y la aprobación comercial, y muestra las URL que se escriben', person: 'escriba las URL y pulse "CONFIRMAR URLS"' },
  8: { appliance: null, person: 'pulse "ENVIAR PRUEBA DE COMPROBANTES" mientras `ecf serve` está en marcha' },
  9: { appliance: 'responde cada e-CF que envía la DGII con un ARECF firmado e informa lo que llegó', person: null },
  10: { appliance: null, person: 'pulse "ENVIAR PRUEBA DE APROBACIONES COMERCIALES"' },
  11: { appliance: 'responde cada aprobación comercial que envía la DGII e informa lo que llegó', person: null },
  12: { appliance: null, person: 'escriba las URL de producción y pulse "CONFIRMAR URLS"' },
  13: { appliance: 'firma el XML que genera el portal con el certificado del representante', person: 'pulse "GENERAR ARCHIVO" y luego cargue el archivo firmado ("ENVIAR ARCHIVO")' },
  14: { appliance: null, person: 'espere a que la DGII verifique el RNC' },
};

/** What the appliance and the person do in a Paso, in the page's language. */
export function pasoText(lang: Lang, paso: Paso): { readonly appliance: string | null; readonly person: string | null } {
  return lang === 'es' ? ES[paso.paso] : paso;
}
