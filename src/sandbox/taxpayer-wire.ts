import { createHash, randomBytes } from 'node:crypto';
import { serialize } from '../engine/xml/canonical.js';
import { signable } from '../engine/xml/schema-gate.js';
import { signCanonical, signatureTimestamp, type SigningKey } from '../engine/signing/xmldsig.js';

/**
 * What another taxpayer's software writes on the wire when the sandbox plays
 * one (taxpayer.ts, certification/players.ts): a signed seed, a multipart
 * upload, a signed ACECF. The sandbox keeps its own copy rather than
 * importing the appliance's (taxauth/token-cache.ts, taxauth/client.ts,
 * reception/documents.ts): it is the other party, and a test where both
 * sides run the same code cannot catch that code being wrong. Only the
 * format helpers below it (canonical XML, the schema gate, XMLDSig) are
 * shared, as the sandbox dependency rule allows.
 */

/** multipart/form-data with one file part, as one Buffer so its length is known. */
export function multipartBody(field: string, fileName: string, partType: string, content: Buffer): { body: Buffer; contentType: string } {
  let boundary: string;
  do boundary = `----sandbox${randomBytes(16).toString('hex')}`;
  while (content.includes(boundary));
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: ${partType}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return { body: Buffer.concat([head, content, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (whole, name: string) => {
    const n = name.toLowerCase();
    const code = n.startsWith('#x') ? parseInt(n.slice(2), 16) : n.startsWith('#') ? parseInt(n.slice(1), 10) : NaN;
    if (!Number.isNaN(code)) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return ENTITIES[n] ?? whole;
  });
}

/**
 * Signs a receiver's seed the way a taxpayer must (NOTES §2 pitfalls): the
 * seed arrives pretty-printed, so `valor`, `fecha` and the root's attributes
 * are read out of it and the document is written again in canonical form,
 * signed with the root's namespaces declared.
 */
export function signSeed(seedXml: string, key: SigningKey): string {
  const root = /<SemillaModel((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*>/.exec(seedXml);
  const valor = /<valor>([^<]*)<\/valor>/.exec(seedXml)?.[1];
  const fecha = /<fecha>([^<]*)<\/fecha>/.exec(seedXml)?.[1];
  if (!root || valor === undefined || fecha === undefined) throw new Error('no SemillaModel with valor and fecha');
  const rootAttributes: Record<string, string> = Object.create(null);
  const rootNamespaces: [string, string][] = [];
  for (const m of (root[1] ?? '').matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = m[1]!;
    const value = decodeEntities(m[2] ?? m[3] ?? '');
    if (name === 'xmlns') continue; // a default namespace would move the elements out of no-namespace
    rootAttributes[name] = value;
    if (name.startsWith('xmlns:')) rootNamespaces.push([name.slice(6), value]);
  }
  const canonical = serialize('semilla', { valor: decodeEntities(valor), fecha: decodeEntities(fecha) }, { rootAttributes });
  return signCanonical(canonical, key, { rootNamespaces }).xml;
}

export interface AcecfInput {
  readonly issuerRnc: string;
  readonly encf: string;
  /** FechaEmision as the e-CF wrote it, dd-MM-yyyy. */
  readonly issueDate: string;
  /** Two decimals. */
  readonly montoTotal: string;
  readonly buyerRnc: string;
  readonly decision: 'accepted' | 'rejected';
  readonly rejectionReason: string | null;
  readonly at: Date;
}

/** The buyer's signed commercial decision (ACECF) over an e-CF it received. */
export function signAcecf(input: AcecfInput, key: SigningKey): { xml: string; sha256: string } {
  const canonical = signable('acecf', {
    DetalleAprobacionComercial: {
      Version: '1.0',
      RNCEmisor: input.issuerRnc,
      eNCF: input.encf,
      FechaEmision: input.issueDate,
      MontoTotal: input.montoTotal,
      RNCComprador: input.buyerRnc,
      Estado: input.decision === 'accepted' ? '1' : '2',
      DetalleMotivoRechazo: input.decision === 'rejected' ? input.rejectionReason : undefined,
      FechaHoraAprobacionComercial: signatureTimestamp(input.at),
    },
  });
  const { xml } = signCanonical(canonical, key);
  return { xml, sha256: createHash('sha256').update(xml, 'utf8').digest('hex') };
}
