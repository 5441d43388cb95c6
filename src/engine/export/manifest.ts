import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { signatureForDigest, type SigningKey } from '../signing/xmldsig.js';
import type { ZipEntryInfo } from './zip-writer.js';

/**
 * manifest.xml: the export's table of contents, signed as one enveloped
 * XMLDSig (signing/xmldsig.ts) that xmlsec1 verifies alone. It is written in
 * canonical form as it goes (no attributes, explicit end tags, escaped text),
 * so the digest of the signature is the SHA-256 of its bytes taken piece by
 * piece: a manifest of a million files is never held whole.
 */

export const MANIFEST_NAME = 'manifest.xml';
export const MANIFEST_ROOT = 'ExportManifest';
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export const escapeText = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
export const el = (name: string, text: string | number): string => `<${name}>${escapeText(String(text))}</${name}>`;

export interface ManifestHead {
  readonly tenantId: string;
  readonly rnc: string;
  readonly legalName: string;
  readonly environment: string;
  readonly from: string;
  readonly to: string;
  readonly createdAt: string;
  readonly certificateSha256: string;
}

export interface TypeCount {
  readonly section: string;
  readonly type: string;
  readonly count: number;
  readonly total: string;
  readonly itbis: string;
}

export interface JournalPosition {
  readonly seq: number;
  readonly link: string;
  readonly closing: string | null;
}

export class ManifestWriter {
  readonly #fd: number;
  readonly #hash: Hash = createHash('sha256');
  #pieces: string[] = [];
  #pending = 0;

  constructor(readonly path: string, head: ManifestHead) {
    this.#fd = openSync(path, 'w');
    writeSync(this.#fd, DECLARATION);
    this.#put(
      `<${MANIFEST_ROOT}>${el('Version', 1)}` +
        `<Tenant>${el('Id', head.tenantId)}${el('RNC', head.rnc)}${el('Name', head.legalName)}</Tenant>` +
        `${el('Environment', head.environment)}<Period>${el('From', head.from)}${el('To', head.to)}</Period>` +
        `${el('CreatedAt', head.createdAt)}${el('CertificateSHA256', head.certificateSha256)}<Files>`,
    );
  }

  #put(text: string): void {
    this.#hash.update(text, 'utf8');
    this.#pieces.push(text);
    this.#pending += text.length;
    if (this.#pending > 1 << 20) this.#flush();
  }

  #flush(): void {
    if (this.#pieces.length === 0) return;
    writeSync(this.#fd, this.#pieces.join(''));
    this.#pieces = [];
    this.#pending = 0;
  }

  file(entry: ZipEntryInfo): void {
    this.#put(`<File>${el('Name', entry.name)}${el('Size', entry.size)}${el('SHA256', entry.sha256)}</File>`);
  }

  /** The counts and the journal's position, then the signature; the file is on disk (fsync) when this returns. */
  finish(counts: readonly TypeCount[], journal: JournalPosition | null, key: SigningKey): void {
    const countsXml = counts.map((c) => `<Count>${el('Section', c.section)}${el('Type', c.type)}${el('Documents', c.count)}${el('Total', c.total)}${el('ITBIS', c.itbis)}</Count>`).join('');
    const journalXml = journal
      ? `<Journal>${el('Seq', journal.seq)}${el('Link', journal.link)}${journal.closing === null ? '' : el('Closing', journal.closing)}</Journal>`
      : '<Journal></Journal>';
    this.#put(`</Files><Counts>${countsXml}</Counts>${journalXml}`);
    const close = `</${MANIFEST_ROOT}>`;
    this.#hash.update(close, 'utf8');
    const { element } = signatureForDigest(this.#hash.digest('base64'), key);
    this.#pieces.push(element, close);
    this.#flush();
    fsyncSync(this.#fd);
    closeSync(this.#fd);
  }

  abandon(): void {
    try {
      closeSync(this.#fd);
    } catch {
      /* closed */
    }
  }
}
