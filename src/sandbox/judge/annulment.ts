import type { Element } from '@xmldom/xmldom';
import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import { SANDBOX_CODES, type SandboxOutcome } from '../outcomes.js';
import { isAnnulled, type State } from '../state.js';
import type { SandboxAnnulment, SandboxEnvironment } from '../types.js';
import { parseXml, textOf, verifySignature } from '../verify.js';

/** anularrango's codigo for "Satisfactorio" (NOTES §4.8). */
const ANNULLED = '15';

/**
 * The checks the authority documents for an ANECF (NOTES §11, DT p.36–37),
 * in order: schema, signature, NoLinea sequential, each range of its
 * line's type with Desde ≤ Hasta, the counts, and numbers neither used by
 * an e-CF or RFCE received nor annulled before; then the scripted verdict.
 */
export function judgeAnnulment(
  state: State,
  environment: SandboxEnvironment,
  xml: string,
  outcome: SandboxOutcome | undefined,
  at: Date,
): Pick<SandboxAnnulment, 'rnc' | 'annulled' | 'code' | 'messages' | 'ranges'> {
  let rnc: string | null = null;
  let ranges: { type: number; from: number; to: number }[] = [];
  const refuse = (code: number, message: string) => ({ rnc, annulled: false, code: String(code), messages: [message], ranges });
  const parsed = parseXml(xml);
  if (!parsed.ok) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${parsed.reason}`);
  if (parsed.root.localName !== 'ANECF') return refuse(SANDBOX_CODES.schema, 'El XML no cumple con el esquema (XSD): la raíz no es ANECF');
  const schema = validateAgainstSchema('anecf', xml);
  if (!schema.valid) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`);
  const signature = verifySignature(xml, parsed, at);
  if (!signature.ok) return refuse(SANDBOX_CODES.signature, `La firma digital del XML no es válida: ${signature.reason}`);
  rnc = textOf(parsed.root, 'RncEmisor');

  const children = (el: Element, name: string): Element[] => Array.from(el.childNodes).filter((c): c is Element => c.nodeType === 1 && (c as Element).localName === name);
  const textIn = (el: Element, name: string): string => children(el, name)[0]?.textContent?.trim() ?? '';
  const header = children(parsed.root, 'Encabezado')[0]!;
  const lines = children(children(parsed.root, 'DetalleAnulacion')[0]!, 'Anulacion');
  let total = 0;
  const read: { type: number; from: number; to: number }[] = [];
  for (const [i, line] of lines.entries()) {
    if (textIn(line, 'NoLinea') !== String(i + 1)) return refuse(SANDBOX_CODES.annulmentLineOrder, 'El campo NoLinea no es válido, no cumple orden secuencial.');
    const type = Number(textIn(line, 'TipoeCF'));
    let count = 0;
    for (const seq of children(children(line, 'TablaRangoSecuenciasAnuladaseNCF')[0]!, 'Secuencias')) {
      const desde = /^E(\d{2})(\d{10})$/.exec(textIn(seq, 'SecuenciaeNCFDesde'));
      const hasta = /^E(\d{2})(\d{10})$/.exec(textIn(seq, 'SecuenciaeNCFHasta'));
      if (!desde || !hasta || Number(desde[1]) !== type || Number(hasta[1]) !== type) {
        return refuse(SANDBOX_CODES.annulmentType, 'El tipo de comprobante no es válido.');
      }
      const from = Number(desde[2]);
      const to = Number(hasta[2]);
      if (from < 1 || from > to) return refuse(SANDBOX_CODES.annulmentReversed, 'La secuencia desde no puede ser mayor que la secuencia hasta.');
      read.push({ type, from, to });
      count += to - from + 1;
    }
    if (Number(textIn(line, 'CantidadeNCFAnulados')) !== count) {
      return refuse(SANDBOX_CODES.annulmentCount, `La cantidad de e-NCF anulados de la línea ${i + 1} no coincide con sus secuencias.`);
    }
    total += count;
  }
  if (Number(textIn(header, 'CantidadeNCFAnulados')) !== total) {
    return refuse(SANDBOX_CODES.annulmentCount, 'La cantidad de e-NCF anulados del encabezado no coincide con el detalle.');
  }
  ranges = read;
  const used = [...state.used].some((k) => {
    const [env, who, encf] = k.split('|');
    if (env !== environment || who !== rnc) return false;
    const type = Number(encf!.slice(1, 3));
    const n = Number(encf!.slice(3));
    return read.some((r) => r.type === type && r.from <= n && n <= r.to);
  });
  const annulledBefore = read.some((r) => isAnnulled(state, environment, rnc, r.type, r.from, r.to));
  if (used || annulledBefore) return refuse(SANDBOX_CODES.annulmentUsed, 'Las secuencias que está intentando anular han sido utilizadas.');
  if (outcome?.kind === 'reject') {
    const [m, ...more] = outcome.messages ?? [{ code: SANDBOX_CODES.rejected, value: 'No fue posible anular las siguientes secuencias (resultado programado en el sandbox).' }];
    return { rnc, annulled: false, code: String(m!.code), messages: [m!.value, ...more.map((x) => x.value)], ranges };
  }
  if (outcome?.kind === 'transientReject') {
    return refuse(outcome.code ?? SANDBOX_CODES.transient, outcome.message ?? 'No fue posible anular las siguientes secuencias. Favor intentar nuevamente.');
  }
  return { rnc, annulled: true, code: ANNULLED, messages: ['Las secuencias fueron anuladas correctamente.'], ranges };
}
