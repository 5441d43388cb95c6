/**
 * The shape of the settings the document pipeline reads, apart from
 * settings.ts (which reads them through the engine) so that the pipeline's
 * pure steps, which the sandbox's playing taxpayer also runs, never lead to
 * the engine, the store or the settings catalogue, even by a type.
 */
export interface DocumentSettings {
  readonly sequenceMode: 'managed' | 'external';
}
