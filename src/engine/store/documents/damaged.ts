import { EngineError } from '../../errors.js';

/** Which stored document a read was about: named in the error, so an operator can find it. */
export interface DocumentRef {
  readonly table: string;
  readonly id: string;
  /** The column, when a row keeps more than one document (rfce_xml, arecf_xml). */
  readonly column?: string;
  readonly encf?: string | null;
}

export const describeDocument = (ref: DocumentRef): string =>
  `${ref.table}${ref.column ? `.${ref.column}` : ''} ${ref.id}${ref.encf ? ` (e-NCF ${ref.encf})` : ''}`;

/** A stored document that does not read back as the bytes that were stored: never answered with other bytes. */
export class DocumentDamaged extends EngineError {
  readonly document: DocumentRef;
  constructor(ref: DocumentRef, reason: string) {
    super('damaged', 'Store.DocumentDamaged', `The stored document ${describeDocument(ref)} is damaged: ${reason}. Restore it from a backup (docs/operating.md).`);
    this.name = 'DocumentDamaged';
    this.document = ref;
  }
}
