import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../engine/engine-types.js';
import { MAX_CERTIFICATE_FILE_BYTES } from '../engine/certificates/index.js';
import { registerAccess } from './access.js';
import { registerJsonBody } from './json-body.js';
import { registerDraining } from './draining.js';
import { registerRequestContext } from './request-context.js';
import { noteProblem } from './logging.js';
import { EngineError } from '../engine/errors.js';
import { ProblemDetails, ValidationProblemDetails, problemFor } from './problem.js';
import { validatorCompiler } from './validation.js';
import { lazySerializers } from './lazy-serializers.js';
import certificateRoutes from './routes/certificates.js';
import ecfRoutes from './routes/ecf.js';
import exportRoutes from './routes/exports.js';
import emitterProfileRoutes from './routes/emitter-profile.js';
import emissionRoutes from './routes/emission.js';
import organizationRoutes from './routes/organizations.js';
import sequenceRoutes from './routes/sequences.js';
import submissionRoutes from './routes/submission.js';
import webhookRoutes from './routes/webhooks.js';
import receptionRoutes, { RECEIVER_PATH } from './routes/reception.js';
import openapiRoutes from './routes/openapi.js';
import healthRoutes from './routes/health.js';
import { registerMetrics } from './routes/metrics.js';
import { closeUnreadUploads } from './routes/multipart-errors.js';
import { isDefect } from '../engine/xml/index.js';
import consolePlugin from '../console/plugin.js';

export interface AppOptions {
  readonly engine: Engine;
  readonly logger?: FastifyServerOptions['logger'];
  /** Largest request body accepted, in bytes; bigger ones get a 413 problem. */
  readonly bodyLimit?: number;
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP (`ecf serve --tls-cert --tls-key`). */
  readonly https?: { readonly key: Buffer; readonly cert: Buffer };
}

export type App = FastifyInstance & ReturnType<FastifyInstance['withTypeProvider']>;

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The problem body for a request the HTTP parser gave up on, before any route or request id. */
function unreadableRequest(status: number, parserCode: string | undefined) {
  const code = status === 408 ? 'Http.RequestTimeout' : status === 431 ? 'Http.HeadersTooLarge' : 'Http.MalformedRequest';
  const detail =
    status === 408
      ? 'The request did not arrive in time; send it whole.'
      : status === 431
        ? 'The request headers are too large.'
        : `The request is not valid HTTP/1.1 or ended before its body did${parserCode ? ` (${parserCode})` : ''}.`;
  return { type: `urn:ecf:problem:${code}`, title: STATUS_TEXT[status], status, detail, instance: null, code, requestId: randomUUID() };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The engine every route works on, decorated once by the ecfApi plugin. */
    readonly engine: Engine;
  }
}

/**
 * The /api/v1 surface (with probes, metrics and the B2B receiver) as a fastify
 * plugin: it decorates `engine` once, and every route reads it from the
 * instance. Not encapsulated (fastify's skip-override, what fastify-plugin
 * sets): the error and not-found handlers, hooks and the decoration belong to
 * the whole server.
 */
export async function ecfApi(app: FastifyInstance, options: { readonly engine: Engine }) {
  app.decorate('engine', options.engine);
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBody(app);
  app.addSchema(ProblemDetails);
  app.addSchema(ValidationProblemDetails);
  registerRequestContext(app);

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error, request, reply) => {
    let problem: ReturnType<typeof problemFor>;
    try {
      problem = problemFor(error, request.url, request.id);
    } catch (mapping) {
      // A defect in the mapper must still answer a problem body, not fastify's own 500 text.
      request.log.error({ err: mapping, reqId: request.id }, 'problem mapping failed');
      problem = problemFor(new Error('problem mapping failed'), request.url, request.id);
    }
    if (problem.status >= 500) request.log.error({ err: error, reqId: request.id }, 'unexpected error');
    else if (isDefect(error)) request.log.error({ err: error, reqId: request.id }, 'defect: a document built here failed its schema');
    noteProblem(reply, problem.body);
    return reply.status(problem.status).type('application/problem+json').send(problem.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const problem = problemFor(new EngineError('not_found', 'Http.RouteNotFound', `No route ${request.method} ${request.url.split('?')[0]}.`), request.url, request.id);
    noteProblem(reply, problem.body);
    return reply.status(problem.status).type('application/problem+json').send(problem.body);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'e-CF appliance API',
        version: '1',
        description:
          'Local API of the self-hosted e-CF issuer. Every /api/v1 operation needs an X-API-Key header; errors are RFC 9457 problem details.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // One file per request, a certificate's size at most: bigger uploads get a 413 problem.
  await app.register(multipart, {
    limits: { fileSize: MAX_CERTIFICATE_FILE_BYTES, files: 1, fields: 4, fieldSize: 4096, parts: 5 },
  });
  closeUnreadUploads(app);

  registerAccess(app);
  registerDraining(app);
  // Probes and metrics: outside /api/v1, no key; the metrics hooks time every route, so they come first.
  await registerMetrics(app);
  await app.register(healthRoutes);
  await app.register(openapiRoutes);
  await app.register(certificateRoutes);
  await app.register(ecfRoutes);
  await app.register(emitterProfileRoutes);
  await app.register(emissionRoutes);
  await app.register(organizationRoutes);
  await app.register(sequenceRoutes);
  await app.register(submissionRoutes);
  await app.register(webhookRoutes);
  await app.register(receptionRoutes);
  await app.register(exportRoutes);
  // The web console: HTML pages in a context of their own (docs/console.md).
  await app.register(consolePlugin, { prefix: '/console' });
}
Object.assign(ecfApi, { [Symbol.for('skip-override')]: true });

/** The whole /api/v1 surface as a fastify instance (the server's options and the ecfApi plugin); `listen` or `inject` it. */
export async function buildApp(options: AppOptions) {
  const app = Fastify({
    // Typed as the HTTP server's options either way: the app's routes do not depend on which.
    ...((options.https ? { https: { key: options.https.key, cert: options.https.cert } } : {}) as object),
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // Time to receive a whole request (headers and body); fastify turns Node's default off, which
    // would let a client that stops sending hold its connection forever. Responses are not bounded by it.
    requestTimeout: 60_000,
    genReqId: () => randomUUID(),
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    requestIdHeader: false,
    ajv: { customOptions: { allErrors: true } },
    // A URL the router cannot read (a bad %-escape) gets the same answers as any other bad request.
    frameworkErrors: (error, request, raw) => {
      const reply = raw as FastifyReply;
      const url = request.raw.url ?? '/';
      reply.header('x-request-id', request.id);
      if (RECEIVER_PATH.test(url)) return reply.status(400).type('text/plain; charset=utf-8').send(`${error.message}\n`);
      const problem = problemFor(error, url, request.id);
      noteProblem(reply, problem.body);
      return reply.status(problem.status).type('application/problem+json').send(problem.body);
    },
    // A request Node's parser cannot read (cut off, bad chunking, headers too large, a stalled
    // client) never reaches a route: it still gets a problem body, never fastify's bare JSON.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return socket.destroy(error);
      const code = (error as NodeJS.ErrnoException).code;
      const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify(unreadableRequest(status, code));
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    // The B2B receiver's paths are case-insensitive (NOTES §10.1): routed in lower case.
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      return RECEIVER_PATH.test(path) ? path.toLowerCase() + (q < 0 ? '' : url.slice(q)) : url;
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(ecfApi, { engine: options.engine });
  await app.ready();
  return app;
}
