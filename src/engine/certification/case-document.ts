import { EngineError } from '../errors.js';
import { securityCode as codeOf, signCanonical, signatureTimestamp, type SigningKey } from '../signing/xmldsig.js';
import { XmlShapeError, serialize, type XmlData } from '../xml/canonical.js';
import type { DocumentKind } from '../xml/schema-trees.generated.js';
import { validateAgainstSchema } from '../xml/xsd.js';
import { describeKind, type WorkbookKind } from './columns.js';
import { rowData, type RowProblem } from './row-document.js';

/**
 * One certification case, ready to send: the row's document verbatim
 * (row-document.ts), plus only what the applicant adds: FechaHoraFirma on an
 * e-CF, the security code of the signed full e-CF 32 in an RFCE's
 * CodigoSeguridadeCF, and the Signature. The signed bytes are checked
 * against the authority's XSD before anyone sends them; a row the schema
 * refuses comes back as CaseRefused with libxml2's messages.
 */

export interface BuildCaseInput {
  readonly kind: WorkbookKind;
  readonly cells: Readonly<Record<string, string>>;
  readonly key: SigningKey;
  readonly signedAt: Date;
  /** RFCE only: the first 6 characters of the signed full e-CF 32's SignatureValue. */
  readonly securityCode?: string;
  /** Where the row is, for messages: e.g. `ECF row 5`. */
  readonly where?: string;
}

export interface BuiltCase {
  /** The signed document (with the XML declaration): these bytes are sent, stored and uploaded. */
  readonly xml: string;
  /**
   * e-CF: the code of this document's own signature (what its RFCE and QR
   * carry). RFCE: the code it carries (the full 32's). ACECF: its own.
   */
  readonly securityCode: string;
  readonly signatureValue: string;
}

export class CaseRefused extends EngineError {
  readonly problems: readonly RowProblem[];
  constructor(kind: WorkbookKind, problems: readonly RowProblem[], where?: string) {
    super(
      'validation',
      'Certification.CaseInvalid',
      `${where ? `${where}: ` : ''}the ${describeKind(kind)} of this row cannot be sent: ${problems.map((p) => p.message).join(' ')}`,
    );
    this.name = 'CaseRefused';
    this.problems = problems;
  }
}

const isEcf = (kind: WorkbookKind): boolean => kind.startsWith('ecf');

/** The case's data as it will be serialized (the row's, plus FechaHoraFirma or CodigoSeguridadeCF). */
export function caseData(input: Omit<BuildCaseInput, 'key'>): { data: XmlData; problems: RowProblem[] } {
  const { data, problems } = rowData(input.kind, input.cells);
  if (isEcf(input.kind)) data.FechaHoraFirma = signatureTimestamp(input.signedAt);
  if (input.kind === 'rfce') {
    const header = (data.Encabezado ??= {}) as XmlData;
    const given = header.CodigoSeguridadeCF as string | undefined;
    const code = input.securityCode;
    if (code === undefined) {
      if (given === undefined) problems.push({ message: 'The RFCE needs the security code of the signed full e-CF 32; sign that first.' });
    } else if (!/^.{6}$/u.test(code)) {
      problems.push({ message: `The security code must be 6 characters (the start of the full e-CF 32's SignatureValue), not "${code}".` });
    } else if (given !== undefined && given !== code) {
      problems.push({ column: 'CodigoSeguridadeCF', message: `The row's CodigoSeguridadeCF "${given}" is not the signed full e-CF 32's code "${code}".` });
    } else {
      header.CodigoSeguridadeCF = code;
    }
  }
  return { data, problems };
}

export function buildCase(input: BuildCaseInput): BuiltCase {
  const { kind } = input;
  const { data, problems } = caseData(input);
  if (problems.length) throw new CaseRefused(kind, problems, input.where);
  let canonical: string;
  try {
    canonical = serialize(kind as DocumentKind, data);
  } catch (e) {
    if (e instanceof XmlShapeError) throw new CaseRefused(kind, [{ message: e.message }], input.where);
    throw e;
  }
  const signed = signCanonical(canonical, input.key);
  const check = validateAgainstSchema(kind as DocumentKind, Buffer.from(signed.xml, 'utf8'));
  if (!check.valid) {
    // The canonical text is one line: libxml2's "line 1:" only adds noise.
    throw new CaseRefused(kind, check.errors.map((m) => ({ message: `The authority's schema refuses it: ${m.replace(/^line \d+: /, '')}` })), input.where);
  }
  const own = codeOf(signed.signatureValue);
  return { xml: signed.xml, securityCode: kind === 'rfce' ? (data.Encabezado as XmlData).CodigoSeguridadeCF as string : own, signatureValue: signed.signatureValue };
}
