import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import { parseXml, verifySignature } from '../verify.js';

/**
 * Checks an uploaded ACECF as the authority would: well-formed, its schema,
 * its signature. Both receivers of ACECF use it (the authority's
 * aprobacioncomercial and the playing taxpayer's own), so they refuse alike.
 * Returns the problem, or null.
 */
export function checkApproval(xml: string, at: Date): string | null {
  const parsed = parseXml(xml);
  if (!parsed.ok) return parsed.reason;
  if (parsed.root.localName !== 'ACECF') return 'the root is not ACECF';
  const schema = validateAgainstSchema('acecf', xml);
  if (!schema.valid) return `El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`;
  const signature = verifySignature(xml, parsed, at);
  return signature.ok ? null : `La firma digital del XML no es válida: ${signature.reason}`;
}
