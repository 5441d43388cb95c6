import { Type, type Static } from '@sinclair/typebox';
import { EngineError } from '../../errors.js';

/** Which stored document a read was about: named in the error, so an operator can find it. */
/** A schema as well as a type: the conversion keeps the first damaged refs in its cursor (convert.ts) and reads them back. */
export const DocumentRefValue = Type.Object({
  table: Type.String(),
  id: Type.String(),
  /** The column, when a row keeps more than one document (rfce_xml, arecf_xml). */
  column: Type.Optional(Type.String()),
  encf: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type DocumentRef = Readonly<Static<typeof DocumentRefValue>>;

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
