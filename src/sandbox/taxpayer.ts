import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { undici } from '../engine/net/undici.js';
import { dominicanDate } from '../engine/clock.js';
import { signEcf } from '../engine/documents/sign-ecf.js';
import { prepareDocument } from '../engine/documents/prepare.js';
import { signingKey, type SigningKey } from '../engine/signing/xmldsig.js';
import { multipartBody, signAcecf, signSeed } from './taxpayer-wire.js';

/**
 * The sandbox as another electronic taxpayer (NOTES §10.4, like the
 * authority's emisor-receptor simulator): it has its own RNC and signing
 * identity, makes and signs e-CF addressed to a buyer, sends them (or an
 * ACECF over a buyer's e-CF) to a receiver over HTTP, authenticating with
 * seed and token when asked, and hosts a receiver of its own for the ACECF
 * its buyers send back.
 */

export const SANDBOX_TAXPAYER_RNC = '131880681';
export const SANDBOX_TAXPAYER_NAME = 'Distribuidora Sandbox SRL';

export interface TaxpayerIdentity {
  readonly key: SigningKey;
  readonly certificatePem: string;
}

/** A fresh RSA key and a self-signed certificate valid around `now`. */
export function makeTaxpayerIdentity(now: Date): TaxpayerIdentity {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fkey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(now.getTime() - 30 * 86_400_000);
  cert.validity.notAfter = new Date(now.getTime() + 5 * 365 * 86_400_000);
  const subject = [
    { name: 'commonName', value: 'SANDBOX FIRMANTE' },
    { type: '2.5.4.5', value: `IDCDO-${SANDBOX_TAXPAYER_RNC}` },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(fkey, forge.md.sha256.create());
  const certificatePem = forge.pki.certificateToPem(cert);
  return { key: signingKey(privateKey, new X509Certificate(certificatePem)), certificatePem };
}

export interface ForeignEcfOptions {
  /** The receiving taxpayer's RNC (RNCComprador). */
  readonly buyerRnc: string;
  readonly encf: string;
  /** 31 (the default), 33, 34 or 44: the types taxpayers exchange. */
  readonly payload?: Record<string, unknown>;
}

/** A signed type-31 e-CF (or the payload given) from the sandbox taxpayer to `buyerRnc`. */
export function makeForeignEcf(identity: TaxpayerIdentity, now: Date, options: ForeignEcfOptions): { xml: string; montoTotal: string; issueDate: string } {
  const payload = options.payload ?? {
    type: 31,
    incomeType: '01',
    payment: { condition: '1' },
    buyer: { rnc: options.buyerRnc, name: 'Comprador de Prueba SRL' },
    lines: [
      { name: 'Papel bond (resma)', quantity: 12, unitPrice: '275.00' },
      { name: 'Tóner negro', quantity: 2, unitPrice: '3450.00' },
    ],
  };
  const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: dominicanDate(now) });
  if (!outcome.document) throw new Error(`the sandbox's e-CF payload is invalid: ${outcome.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const computed = outcome.document.computed;
  const signed = signEcf({
    document: outcome.document,
    computed,
    issuer: {
      rnc: SANDBOX_TAXPAYER_RNC,
      legalName: SANDBOX_TAXPAYER_NAME,
      tradeName: null,
      address: 'Av. Sandbox 1',
      municipality: '010100',
      province: '010000',
      phones: [],
      email: null,
      economicActivity: null,
    },
    numbering: { encf: options.encf, sequenceExpiresOn: outcome.document.type === 32 || outcome.document.type === 34 ? null : '2030-12-31' },
    key: identity.key,
    environment: 'test',
    now,
  });
  return { xml: signed.xml, montoTotal: computed.totals.montoTotal.toFixed(2), issueDate: outcome.document.issueDate };
}

export interface ForeignApprovalOptions {
  /** The issuer of the e-CF approved (the receiver's tenant). */
  readonly issuerRnc: string;
  readonly encf: string;
  /** YYYY-MM-DD */
  readonly issueDate: string;
  readonly montoTotal: string;
  readonly decision: 'accepted' | 'rejected';
  readonly rejectionReason?: string | null;
}

/** A signed ACECF from the sandbox taxpayer, as buyer, over an e-CF it received. */
export function makeForeignApproval(identity: TaxpayerIdentity, now: Date, options: ForeignApprovalOptions): string {
  const [y, m, d] = options.issueDate.split('-');
  return signAcecf(
    {
      issuerRnc: options.issuerRnc,
      encf: options.encf,
      issueDate: `${d}-${m}-${y}`,
      montoTotal: options.montoTotal,
      buyerRnc: SANDBOX_TAXPAYER_RNC,
      decision: options.decision,
      rejectionReason: options.rejectionReason ?? null,
      at: now,
    },
    identity.key,
  ).xml;
}

export interface SendOptions {
  /** Authenticate at `{receiverUrl}/fe/autenticacion` first and send the bearer token. */
  readonly authenticate?: boolean;
  readonly fileName: string;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

/** POSTs a document to `{receiverUrl}/fe/{path}` as multipart `xml`, with a real Content-Length. */
export async function sendToReceiver(identity: TaxpayerIdentity, receiverUrl: string, path: 'recepcion/api/ecf' | 'aprobacioncomercial/api/ecf', xml: string, options: SendOptions): Promise<ReceiverAnswer> {
  const base = receiverUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  if (options.authenticate) {
    const seed = await undici().request(`${base}/fe/autenticacion/api/semilla`);
    const seedXml = await seed.body.text();
    if (seed.statusCode !== 200) throw new Error(`the receiver's seed answered ${seed.statusCode}: ${seedXml}`);
    const form = multipartBody('xml', 'semilla.xml', 'text/xml', Buffer.from(signSeed(seedXml, identity.key), 'utf8'));
    const grant = await undici().request(`${base}/fe/autenticacion/api/validacioncertificado`, {
      method: 'POST',
      headers: { 'content-type': form.contentType, 'content-length': String(form.body.length), accept: 'application/json' },
      body: form.body,
    });
    const text = await grant.body.text();
    if (grant.statusCode !== 200) throw new Error(`the receiver's validacioncertificado answered ${grant.statusCode}: ${text}`);
    headers.authorization = `Bearer ${(JSON.parse(text) as { token: string }).token}`;
  }
  const form = multipartBody('xml', options.fileName, 'text/xml', Buffer.from(xml, 'utf8'));
  const res = await undici().request(`${base}/fe/${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': form.contentType, 'content-length': String(form.body.length) },
    body: form.body,
  });
  const ct = res.headers['content-type'];
  return { status: res.statusCode, contentType: Array.isArray(ct) ? (ct[0] ?? null) : (ct ?? null), body: await res.body.text() };
}
