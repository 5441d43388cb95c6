/** The sandbox checks signatures as the engine's receiver does: one implementation, independent of the signer. */
export { parseXml, textOf, verifySignature, type Parsed, type SignatureCheck } from '../engine/signing/verify.js';
