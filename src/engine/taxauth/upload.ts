import { randomBytes } from 'node:crypto';
import type { EcfUpload } from './types.js';

/*
 * What an upload to the authority (and to another taxpayer's receiver) is on
 * the wire (NOTES §3.1): a multipart/form-data body with one file part, as
 * one Buffer so the request carries a real Content-Length, named
 * `{RNC}{eNCF}.xml`.
 */

const RNC = /^(?:\d{9}|\d{11})$/;
const ENCF = /^E\d{12}$/;

/** `{RNC}{eNCF}.xml`, the name the authority requires of an upload (NOTES §3.1). */
export function uploadName(upload: Pick<EcfUpload, 'rnc' | 'encf'>): string {
  if (!RNC.test(upload.rnc)) throw new TypeError(`An upload needs the issuer's RNC (9 or 11 digits), not ${JSON.stringify(upload.rnc)}.`);
  if (!ENCF.test(upload.encf)) throw new TypeError(`An upload needs an e-NCF like E310000000001, not ${JSON.stringify(upload.encf)}.`);
  return `${upload.rnc}${upload.encf}.xml`;
}

/**
 * multipart/form-data with one file part, as one Buffer so its length is
 * known. The boundary is random and checked against the content.
 */
export function multipartBody(field: string, fileName: string, partType: string, content: Buffer): { body: Buffer; contentType: string } {
  let boundary: string;
  do boundary = `----ecf${randomBytes(16).toString('hex')}`;
  while (content.includes(boundary));
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: ${partType}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return { body: Buffer.concat([head, content, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

export const toBuffer = (xml: Buffer | string): Buffer => (typeof xml === 'string' ? Buffer.from(xml, 'utf8') : xml);

