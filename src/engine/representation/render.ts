import { title, type RenderFacts } from './content.js';
import { Pdf, qrMatrix } from './kit.js';
import { renderLetter } from './letter.js';
import type { Layout } from '../settings/layouts.js';
import type { PrintedEcf } from './reader.js';
import { ROLL_58, ROLL_80, renderRoll } from './roll.js';


export interface Rendered {
  readonly pdf: Buffer;
  readonly pages: number;
}

/**
 * The printed representation of a signed e-CF in one layout. A pure
 * function of the signed XML (read into `printed`) and the facts stored with
 * it: the same e-CF and layout always give the same bytes (the PDF's dates
 * are the signing instant), so the PDF need not be kept to be reproduced.
 */
export function renderRepresentation(printed: PrintedEcf, facts: RenderFacts & { readonly signedAt: Date }, layout: Layout): Rendered {
  const pdf = new Pdf({
    title: `${title(printed)} ${printed.encf}`,
    author: printed.issuer.legalName,
    subject: `e-CF ${printed.encf} de RNC ${printed.issuer.rnc}`,
    createdAt: facts.signedAt,
  });
  const qr = qrMatrix(facts.qrUrl);
  const pages = layout === 'letter' ? renderLetter(pdf, printed, facts, qr) : renderRoll(pdf, printed, facts, qr, layout === 'pos' ? ROLL_80 : ROLL_58);
  return { pdf: pdf.finish(), pages };
}
