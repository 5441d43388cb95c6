/** Checks a document's own XML signature as of `at`: null when it holds, else the reason. */
export type SignatureChecker = (xml: Buffer, at: Date) => string | null;

/**
 * The checker of `ecf store verify --signatures` and `ecf export verify`.
 * Loaded only when asked for: the XML parser and xml-crypto are the heavy part.
 */
export async function signatureChecker(): Promise<SignatureChecker> {
  const { parseXml, verifySignature } = await import('./verify.js');
  return (bytes, at) => {
    const xml = bytes.toString('utf8');
    const parsed = parseXml(xml);
    if (!parsed.ok) return parsed.reason;
    const check = verifySignature(xml, parsed, at);
    return check.ok ? null : check.reason;
  };
}
