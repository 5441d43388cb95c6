import type { FastifyRequest } from 'fastify';

/** Every upload to the authority and to the playing taxpayer: one multipart file part named `xml`. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** The one file of a multipart upload, or the authority's text for what is wrong with it. */
export async function readUpload(request: FastifyRequest): Promise<{ fileName: string; xml: string } | { error: string }> {
  // The authority's answer to an upload without a length (chunked), NOTES §3.1.
  if (!request.headers['content-length']) return { error: 'Multipart cannot be empty' };
  if (!request.isMultipart()) return { error: 'Multipart cannot be empty' };
  try {
    const part = await request.file();
    if (!part) return { error: 'Multipart cannot be empty' };
    if (part.fieldname.toLowerCase() !== 'xml') return { error: `The form field must be named xml, not ${part.fieldname}` };
    const buffer = await part.toBuffer();
    let xml = buffer.toString('utf8');
    if (xml.charCodeAt(0) === 0xfeff) xml = xml.slice(1);
    return { fileName: part.filename ?? '', xml };
  } catch (e) {
    return { error: `The upload cannot be read: ${(e as Error).message}` };
  }
}
