import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { EngineError, invalidField } from '../../engine/errors.js';

/**
 * What goes wrong while a multipart/form-data body is read, as engine errors.
 * busboy reports a truncated body ("Part terminated early", or the part's
 * stream closed prematurely under the reader) or a Content-Type without a
 * boundary with plain Errors that carry no status, which came out as 500s; @fastify/multipart answers 406 (an Accept-header status) for a
 * part declared JSON that is not. Every upload route reads its parts inside
 * `readingMultipart` so that each of these is a 400 or 413 naming the rule.
 */
export function multipartError(error: unknown, fileLimitBytes: number): unknown {
  if (error instanceof EngineError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new EngineError('too_large', 'Multipart.FileTooLarge', `The file part is larger than ${fileLimitBytes} bytes, the most this upload takes.`);
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new EngineError('too_large', 'Multipart.TooManyParts', 'The multipart body has more parts than this upload takes: send only the parts it names.');
    case 'FST_PROTO_VIOLATION':
      return invalidField('(body)', 'Multipart.ForbiddenPartName', 'A part is named after an object property (__proto__, constructor, ...): send only the parts this upload names.');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalidField('(body)', 'Multipart.InvalidJsonPart', 'A part declared Content-Type application/json is not valid JSON.');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return invalidField('header.content-type', 'Multipart.NotMultipart', 'The body is not multipart/form-data.');
    // The part's stream destroyed under the reader when the body ends early.
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return truncated();
  }
  const text = typeof message === 'string' ? message : '';
  if (/boundary (?:not found|required)/i.test(text)) {
    return invalidField('header.content-type', 'Multipart.BoundaryMissing', 'The Content-Type names no boundary: send multipart/form-data; boundary=<the boundary the body uses>.');
  }
  if (/terminated early|unexpected end of (?:multipart data|form)/i.test(text)) return truncated();
  return error;
}

const truncated = () =>
  invalidField('(body)', 'Multipart.Truncated', 'The multipart body ends in the middle of a part: send the whole body, up to its closing boundary.');

/** Runs `read` (which consumes the request's parts), turning the errors above into engine errors. */
export async function readingMultipart<T>(fileLimitBytes: number, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw multipartError(e, fileLimitBytes);
  }
}

/** Reads a part nobody wants to its end, so that the parts after it (and the request's end) arrive. */
export async function discardPart(file: Readable): Promise<void> {
  file.resume();
  await finished(file);
}

/**
 * A multipart request answered before its body was read to the end (a limit
 * hit, a refusal before reading) leaves the rest in the socket, unread: on a
 * keep-alive connection the next request waits behind it until the socket
 * times out. Those answers close the connection instead; a client opens a
 * new one for its next request.
 */
export function closeUnreadUploads(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete && request.isMultipart()) reply.header('connection', 'close');
  });
}
