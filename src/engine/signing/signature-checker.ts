/** Checks a document's own XML signature as of `at`: null when it holds, else the reason. */
export type SignatureChecker = (xml: Buffer, at: Date) => string | null;

/**
 * The checker of `ecf store verify --signatures` and `ecf export verify`.
 * The fast check (fast-verify.ts: xml-crypto's full processing costs about
 * 13 ms a document). Loaded only when asked for: the XML parser and
 * xml-crypto are the heavy part.
 */
export async function signatureChecker(): Promise<SignatureChecker> {
  const [{ parseXml }, { verifySignatureFast }] = await Promise.all([import('./verify.js'), import('./fast-verify.js')]);
  return (bytes, at) => {
    const xml = bytes.toString('utf8');
    const parsed = parseXml(xml);
    if (!parsed.ok) return parsed.reason;
    const check = verifySignatureFast(xml, parsed, at);
    return check.ok ? null : check.reason;
  };
}
