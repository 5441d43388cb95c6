import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { Issuer } from '../../../src/engine/documents/ecf-xml.js';
import { signEcf, type SignedEcf } from '../../../src/engine/documents/sign-ecf.js';
import type { NormalizedDocument } from '../../../src/engine/documents/model.js';
import { prepareDocument, type ValidationOutcome } from '../../../src/engine/documents/prepare.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import { validateAgainstSchema, type SchemaValidation } from '../../../src/engine/xml/xsd.js';
import type { DocumentKind } from '../../../src/engine/xml/schema-trees.generated.js';
import { makeIdentity } from '../../certs.js';

/**
 * The issuing path without the store: prepareDocument, then signEcf (which
 * builds the XML, checks it and signs it), then the official schema on the
 * signed bytes. One key per test file; the clock and the day are fixed.
 */
export const TODAY = '2026-03-10';
export const NOW = new Date('2026-03-10T14:05:09Z');
export const identity = makeIdentity();
export const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));

export const issuer: Issuer = {
  rnc: '131234567',
  legalName: 'Telecomunicaciones Ñoño & Hijos SRL',
  tradeName: 'Tele Ñoño',
  address: 'Calle El Conde 12, Zona Colonial',
  municipality: '010100',
  province: '010000',
  phones: ['809-555-1234'],
  email: 'ventas@telenono.do',
  economicActivity: 'Telecomunicaciones',
};

export const validate = (payload: unknown): ValidationOutcome => prepareDocument(payload, { sequenceMode: 'managed', today: TODAY });

export interface Issued {
  readonly outcome: ValidationOutcome;
  readonly signed: SignedEcf;
  readonly schema: SchemaValidation;
  readonly rfceSchema: SchemaValidation | null;
}

/** Signs a validated document as issuing would, with the first number of its type. */
export function signValidated(doc: NormalizedDocument): SignedEcf {
  return signEcf({
    document: doc,
    computed: doc.computed,
    issuer,
    numbering: { encf: `E${doc.type}0000000001`, sequenceExpiresOn: doc.type === 32 || doc.type === 34 ? null : '2027-12-31' },
    key,
    environment: 'test',
    now: NOW,
  });
}

/** Signs a validated document (throws when validation refused it) and checks the result against the XSD. */
export function issueValid(payload: unknown): Issued {
  const outcome = validate(payload);
  if (!outcome.document) throw new Error(`validation refused the payload: ${JSON.stringify(outcome.errors)}`);
  const doc = outcome.document;
  const signed = signValidated(doc);
  return {
    outcome,
    signed,
    schema: validateAgainstSchema(`ecf${doc.type}` as DocumentKind, signed.xml),
    rfceSchema: signed.rfceXml ? validateAgainstSchema('rfce', signed.rfceXml) : null,
  };
}

/** The text of every element with this name, in document order. */
export const texts = (xml: string, name: string): string[] =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);
export const text = (xml: string, name: string): string | undefined => texts(xml, name)[0];
