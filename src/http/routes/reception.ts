import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EngineError, ValidationError } from '../../engine/errors.js';
import { Uuid } from '../../engine/schema-types.js';
import { getReceivedEcf, InboundSettings, issueReceiverSeed, listReceivedEcf, PagedReceivedEcf, ReceivedEcfView, ReceivedListQuery, setInboundSettings, validateReceiverSeed } from '../../engine/reception/index.js';
import { CommercialApprovalBody, decideCommercialApproval, MAX_RECEIVED_BYTES, receiveEcf, receiveInboundApproval, APPROVAL_RECEIVED_ANSWER } from '../../engine/reception/receiving.js';
import { problems } from '../problem.js';
import { noteProblem } from '../logging.js';
import { discardPart, readingMultipart } from './multipart-errors.js';
import { validatorCompiler } from '../validation.js';
import { isDefect } from '../../engine/xml/index.js';

const IdParams = Type.Object({ id: Uuid() });
const TenantParams = Type.Object({ tenantId: Type.String() });

/**
 * A receiver path: `/{tenantId}/fe/...`. The authority requires receivers'
 * paths to be case-insensitive (NOTES §10.1); the app lower-cases these
 * before routing (buildApp's rewriteUrl), so the routes below are written
 * in lower case.
 */
export const RECEIVER_PATH = /^\/[0-9a-f-]{36}\/fe\//i;

/** Receiver routes answer in plain text, as the authority's receivers do; never a problem document. */
function plainError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let text = 'Unexpected error; quote the request id to the receiver.';
  if (error instanceof ValidationError) {
    status = 400;
    text = error.errors.map((e) => e.message).join('\n');
  } else if (error instanceof EngineError) {
    status = { validation: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, too_large: 413, unavailable: 503, damaged: 500 }[error.kind];
    text = error.message;
  } else {
    const fe = error as { statusCode?: number; code?: string };
    if (fe.code === 'FST_REQ_FILE_TOO_LARGE') status = 413;
    else if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) status = fe.statusCode;
    if (status < 500) text = error.message;
  }
  if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'receiver error');
  else if (isDefect(error)) request.log.error({ err: error, reqId: request.id }, 'defect: a document built here failed its schema');
  if (error instanceof EngineError) noteProblem(reply, { code: error.code, fieldErrors: error instanceof ValidationError ? error.errors : [] });
  if (status === 401) void reply.header('www-authenticate', 'Bearer');
  return reply.status(status).type('text/plain; charset=utf-8').send(text);
}

/**
 * The one `xml` file of a multipart upload. Every part is read to its end, a
 * misnamed one too: a refusal sent while the body is still arriving left the
 * rest unread on a keep-alive connection, and the next request there hung
 * behind it (issue 32, point 14).
 */
async function readXml(request: FastifyRequest): Promise<{ xml: Buffer; fileName: string | null }> {
  const missing = () => new ValidationError([{ path: 'xml', code: 'Receiver.XmlRequired', message: 'Send the document as multipart/form-data with one file part named xml.' }]);
  if (!request.isMultipart()) throw missing();
  return readingMultipart(MAX_RECEIVED_BYTES, async () => {
    let upload: { xml: Buffer; fileName: string | null } | undefined;
    // One file part at most (the app's multipart limits): any other is read and dropped.
    for await (const part of request.parts({ limits: { fileSize: MAX_RECEIVED_BYTES } })) {
      if (part.type === 'file' && part.fieldname.toLowerCase() === 'xml') upload = { xml: await part.toBuffer(), fileName: part.filename || null };
      else if (part.type === 'file') await discardPart(part.file);
    }
    if (!upload) throw missing();
    return upload;
  });
}

export default async function receptionRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  // ---- the receiver another taxpayer calls (NOTES §10.1), one per tenant
  const receiver = { config: { access: 'receiver' as const }, errorHandler: plainError, schema: { hide: true, params: TenantParams } };
  const receiverAuth = { ...receiver, config: { access: 'receiver-auth' as const } };

  app.get('/:tenantId/fe/autenticacion/api/semilla', receiverAuth, async (request, reply) =>
    reply.type('application/xml; charset=utf-8').send(await issueReceiverSeed(engine, request.tenantId)),
  );

  app.post('/:tenantId/fe/autenticacion/api/validacioncertificado', receiverAuth, async (request, reply) => {
    const { xml } = await readXml(request);
    const grant = await validateReceiverSeed(engine, request.tenantId, xml.toString('utf8'));
    if (/xml/i.test(request.headers.accept ?? '') && !/json/i.test(request.headers.accept ?? '')) {
      return reply
        .type('application/xml; charset=utf-8')
        .send(`<?xml version="1.0" encoding="utf-8"?><RespuestaAutenticacion><token>${grant.token}</token><expira>${grant.expira}</expira><expedido>${grant.expedido}</expedido></RespuestaAutenticacion>`);
    }
    return reply.send(grant);
  });

  app.post('/:tenantId/fe/recepcion/api/ecf', receiver, async (request, reply) => {
    const upload = await readXml(request);
    const reception = await receiveEcf(engine, request.tenantId, upload);
    return reply.type('application/xml; charset=utf-8').send(reception.arecf);
  });

  app.post('/:tenantId/fe/aprobacioncomercial/api/ecf', receiver, async (request, reply) => {
    const upload = await readXml(request);
    await receiveInboundApproval(engine, request.tenantId, upload);
    return reply.code(200).type('application/json; charset=utf-8').send(APPROVAL_RECEIVED_ANSWER);
  });

  // ---- the tenant's side
  app.put(
    '/api/v1/inbound-ecf-settings',
    {
      config: { access: 'inboundSettings.update' },
      schema: {
        tags: ['Reception'],
        summary: 'Whether the B2B receiver routes (/{tenantId}/fe/recepcion and /fe/aprobacioncomercial) require a bearer token from /fe/autenticacion',
        body: InboundSettings,
        response: { 200: InboundSettings, ...problems(400, 401, 403) },
      },
    },
    async (request) => setInboundSettings(engine, request.tenantId, request.body),
  );

  app.get(
    '/api/v1/received-ecf',
    {
      config: { access: 'receivedEcf.list' },
      // The engine checks the parameters, in any casing (status, Status).
      validatorCompiler: (route) =>
        route.httpPart === 'querystring' ? (value: unknown) => ({ value }) : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]),
      schema: {
        tags: ['Reception'],
        summary: 'The inbox: e-CF other issuers sent, newest first, filtered and paged',
        querystring: ReceivedListQuery,
        response: { 200: PagedReceivedEcf, ...problems(400, 401, 403) },
      },
    },
    async (request) => listReceivedEcf(engine, request.tenantId, request.query),
  );

  app.get(
    '/api/v1/received-ecf/:id',
    {
      config: { access: 'receivedEcf.get' },
      schema: {
        tags: ['Reception'],
        summary: 'A received e-CF with the reception result, the ARECF answered and the commercial approval if any',
        params: IdParams,
        response: { 200: ReceivedEcfView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getReceivedEcf(engine, request.tenantId, request.params.id),
  );

  app.post(
    '/api/v1/received-ecf/:id/commercial-approval',
    {
      config: { access: 'receivedEcf.commercialApproval' },
      // The engine checks the body, so every problem (shape, decision, reason rule) comes in one 400.
      validatorCompiler: (route) =>
        route.httpPart === 'body' ? (value: unknown) => ({ value }) : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]),
      schema: {
        tags: ['Reception'],
        summary: 'Accept or reject a received e-CF commercially: signs an ACECF and queues its delivery to the issuer and the authority (202)',
        params: IdParams,
        body: CommercialApprovalBody,
        response: { 202: ReceivedEcfView, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(202).send(await decideCommercialApproval(engine, request.tenantId, request.params.id, request.body)),
  );
}
