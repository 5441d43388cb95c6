import { createHash } from 'node:crypto';
import { money } from '../money.js';
import type { Environment } from '../schema-types.js';
import { securityCode, signCanonical, signatureTimestamp, type SigningKey } from '../signing/xmldsig.js';
import { consumerTimbreUrl, standardTimbreUrl } from '../signing/timbre.js';
import { serialize } from '../xml/canonical.js';
import type { DocumentKind } from '../xml/schema-trees.generated.js';
import { ecfData, xmlDate, type Issuer, type Numbering } from './ecf-xml.js';
import { rfceData, takesRfce } from './rfce-xml.js';
import type { ComputedDocument } from './totals.js';
import type { NormalizedDocument } from './validate.js';

export interface SignedEcf {
  /** The signed e-CF: these bytes are stored, sent, downloaded and hashed, never re-serialised. */
  readonly xml: string;
  /** SHA-256 (hex) of `xml` as UTF-8. */
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

/** Builds the e-CF (and the RFCE where it applies) in canonical form and signs them. */
export function signEcf(input: SignEcfInput): SignedEcf {
  const { document: doc, computed, issuer, numbering, key, now } = input;
  const signedAtText = signatureTimestamp(now);
  const data = ecfData(doc, computed, issuer, numbering, signedAtText);
  const signed = signCanonical(serialize(`ecf${doc.type}` as DocumentKind, data), key);
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
  return {
    xml: signed.xml,
    xmlSha256: createHash('sha256').update(signed.xml, 'utf8').digest('hex'),
    securityCode: code,
    signedAt: now,
    signedAtText,
    qrUrl,
    rfceXml: rfce ? signCanonical(serialize('rfce', rfceData(data, computed.totals, code)), key).xml : null,
  };
}
