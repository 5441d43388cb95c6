import { createHash } from 'node:crypto';
import { money } from '../money.js';
import type { Environment } from '../schema-types.js';
import { securityCode, signCanonical, signCanonicalOffThread, signatureTimestamp, type SignedXml, type SigningKey } from '../signing/xmldsig.js';
import { consumerTimbreUrl, standardTimbreUrl } from '../signing/timbre.js';
import { signable } from '../xml/schema-gate.js';
import type { DocumentKind } from '../xml/schema-trees.generated.js';
import { ecfData, xmlDate, type Issuer, type Numbering } from './ecf-xml.js';
import { rfceData, takesRfce } from './rfce-xml.js';
import type { ComputedDocument } from './totals.js';
import type { NormalizedDocument } from './model.js';

export interface SignedEcf {
  /** The signed e-CF: these bytes are stored, sent, downloaded and hashed, never re-serialised. */
  readonly xml: string;
  /** `xml` as UTF-8: the bytes stored. */
  readonly xmlBytes: Buffer;
  /** SHA-256 (hex) of `xmlBytes`. */
  readonly xmlSha256: string;
  readonly securityCode: string;
  readonly signedAt: Date;
  /** FechaHoraFirma as written. */
  readonly signedAtText: string;
  readonly qrUrl: string;
  /** The signed summary for type 32 under DOP 250,000; null otherwise. */
  readonly rfceXml: string | null;
}

export interface SignEcfInput {
  readonly document: NormalizedDocument;
  readonly computed: ComputedDocument;
  readonly issuer: Issuer;
  readonly numbering: Numbering;
  readonly key: SigningKey;
  readonly environment: Environment;
  readonly now: Date;
}

/**
 * The steps of signing an e-CF, with each RSA signature left to the caller:
 * the generator yields a canonical document and is resumed with it signed.
 * The RFCE's signature needs the e-CF's first (its security code), so there
 * are one or two yields, in order.
 */
function* ecfSigning(input: SignEcfInput): Generator<string, SignedEcf, SignedXml> {
  const { document: doc, computed, issuer, numbering, now } = input;
  const signedAtText = signatureTimestamp(now);
  const data = ecfData(doc, computed, issuer, numbering, signedAtText);
  const signed = yield signable(`ecf${doc.type}` as DocumentKind, data);
  const code = securityCode(signed.signatureValue);
  const montoTotal = money(computed.totals.montoTotal);
  const rfce = takesRfce(doc.type, computed.totals);
  const buyerRnc = doc.type === 43 || doc.type === 47 ? null : (doc.command.buyer?.rnc ?? null);
  const qrUrl = rfce
    ? consumerTimbreUrl({ environment: input.environment, issuerRnc: issuer.rnc, encf: numbering.encf, montoTotal, securityCode: code })
    : standardTimbreUrl({
        environment: input.environment,
        issuerRnc: issuer.rnc,
        buyerRnc,
        encf: numbering.encf,
        issueDate: xmlDate(doc.issueDate),
        montoTotal,
        signedAt: signedAtText,
        securityCode: code,
      });
  // Encoded once, for the hash and the store: UTF-8 from a string with accents is slower to write than to hash.
  const xmlBytes = Buffer.from(signed.xml, 'utf8');
  return {
    xml: signed.xml,
    xmlBytes,
    xmlSha256: createHash('sha256').update(xmlBytes).digest('hex'),
    securityCode: code,
    signedAt: now,
    signedAtText,
    qrUrl,
    rfceXml: rfce ? (yield signable('rfce', rfceData(data, computed.totals, code))).xml : null,
  };
}

/** Builds the e-CF (and the RFCE where it applies) in canonical form and signs them. */
export function signEcf(input: SignEcfInput): SignedEcf {
  const steps = ecfSigning(input);
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    step = steps.next(signCanonical(step.value, input.key));
  }
}

/** signEcf with the RSA operations on the thread pool (see signCanonicalOffThread). */
export async function signEcfOffThread(input: SignEcfInput): Promise<SignedEcf> {
  const steps = ecfSigning(input);
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    step = steps.next(await signCanonicalOffThread(step.value, input.key));
  }
}
