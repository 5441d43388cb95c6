import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { dryRunIssue, IssueEcfCommand, ValidationResult } from '../../engine/documents/index.js';
import { EcfView, ecfXml, getEcf, listEcf, ListQuery, PagedEcf } from '../../engine/ecf/index.js';
import { issueAndWait } from '../../engine/ecf/issuing.js';
import { Uuid } from '../../engine/schema-types.js';
import { ecfRepresentation, LAYOUTS, type Layout } from '../../engine/representation/index.js';
import { problems } from '../problem.js';

const IdParams = Type.Object({ id: Uuid() });

/** The contract's casing of query parameter names (PascalCase for the list); any casing is accepted. */
function contractCasing(schema: { properties: Record<string, unknown> }) {
  const keys = new Map(Object.keys(schema.properties).map((k) => [k.toLowerCase(), k]));
  return (query: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(query).map(([k, v]) => [keys.get(k.toLowerCase()) ?? k, v]));
}
const listCasing = contractCasing(ListQuery);

/** The contract types `layout` as an integer: 1 letter, 2 pos, 3 pos58, in the order of LAYOUTS. */
const layoutName = (layout: Layout | number): Layout => (typeof layout === 'number' ? LAYOUTS[layout - 1]! : layout);
const LAYOUT_CHOICES = LAYOUTS.map((l, i) => `${i + 1} (${l})`).join(', ');

const RepresentationQuery = Type.Object({
  layout: Type.Optional(
    Type.Union([...LAYOUTS.map((l) => Type.Literal(l)), Type.Integer({ minimum: 1, maximum: LAYOUTS.length })], {
      errorMessage: `must be ${LAYOUTS.join(', ')} or the number of one: ${LAYOUT_CHOICES}`,
      description: `letter (8.5 × 11 in), pos (80 mm roll) or pos58 (58 mm roll); or the contract's integer: ${LAYOUT_CHOICES}`,
    }),
  ),
  download: Type.Optional(Type.Boolean({ description: 'true: Content-Disposition attachment (a download) instead of inline' })),
});
const representationCasing = contractCasing(RepresentationQuery);

/** A 10,000-line credit note is a few megabytes of JSON. */
export const ECF_BODY_LIMIT = 16 * 1024 * 1024;

export default async function ecfRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/ecf/validate',
    {
      config: { access: 'ecf.validate' },
      bodyLimit: ECF_BODY_LIMIT,
      // Problems with the payload are the answer (200 with valid: false), not a 400: the engine checks it.
      validatorCompiler: () => (value: unknown) => ({ value }),
      schema: {
        tags: ['e-CF'],
        summary: 'Dry run: the same validation matrix and totals as issuing; nothing is numbered, signed or stored',
        body: IssueEcfCommand,
        response: { 200: ValidationResult, ...problems(400, 401, 403, 413) },
      },
    },
    async (request) => dryRunIssue(engine, request.tenantId, request.body),
  );

  app.post(
    '/api/v1/ecf',
    {
      config: { access: 'ecf.issue' },
      bodyLimit: ECF_BODY_LIMIT,
      // The engine validates the payload, so shape and per-type errors come back together in one 400.
      validatorCompiler: () => (value: unknown) => ({ value }),
      schema: {
        tags: ['e-CF'],
        summary: 'Issue an e-CF: validate, number, sign and store it (201), or return the one this key or internalNumber already issued (200)',
        headers: Type.Object({ 'idempotency-key': Type.String({ description: 'Required. One e-CF per key; the same key with another body is a 409.' }) }),
        body: IssueEcfCommand,
        response: { 201: EcfView, 200: EcfView, ...problems(400, 401, 403, 409, 413, 503) },
      },
    },
    async (request, reply) => {
      const header = request.headers['idempotency-key'];
      const { ecf, created } = await issueAndWait(engine, request.tenantId, {
        idempotencyKey: (Array.isArray(header) ? header[0] : header) ?? '',
        payload: request.body,
      });
      return reply.status(created ? 201 : 200).send(ecf);
    },
  );

  app.get(
    '/api/v1/ecf',
    {
      config: { access: 'ecf.list' },
      preValidation: async (request) => {
        request.query = listCasing(request.query as Record<string, unknown>) as typeof request.query;
      },
      schema: {
        tags: ['e-CF'],
        summary: 'The tenant’s e-CF, newest first by default, filtered and paged',
        querystring: ListQuery,
        response: { 200: PagedEcf, ...problems(400, 401, 403) },
      },
    },
    async (request) => listEcf(engine, request.tenantId, request.query),
  );

  app.get(
    '/api/v1/ecf/:id',
    {
      config: { access: 'ecf.get' },
      schema: { tags: ['e-CF'], summary: 'One e-CF', params: IdParams, response: { 200: EcfView, ...problems(400, 401, 403, 404) } },
    },
    async (request) => getEcf(engine, request.tenantId, request.params.id),
  );

  app.get(
    '/api/v1/ecf/:id/xml',
    {
      config: { access: 'ecf.xml' },
      schema: {
        tags: ['e-CF'],
        summary: 'The signed XML, byte for byte as signed; rfce=true gives the signed summary of a type 32 under DOP 250,000',
        params: IdParams,
        querystring: Type.Object({ rfce: Type.Optional(Type.Boolean()) }),
        produces: ['application/xml'],
        response: { 200: Type.String({ description: 'The signed XML (application/xml; charset=utf-8), sent as stored' }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { encf, bytes } = await ecfXml(engine, request.tenantId, request.params.id, request.query.rfce === true);
      const name = `${encf}${request.query.rfce ? '-rfce' : ''}.xml`;
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `inline; filename="${name}"`).send(bytes as unknown as string); // a Buffer goes out unserialised, byte for byte
    },
  );

  app.get(
    '/api/v1/ecf/:id/representation',
    {
      config: { access: 'ecf.representation' },
      preValidation: async (request) => {
        // Layout names in any casing (Letter, POS), like the parameter names; numbers are checked as numbers.
        const query = representationCasing(request.query as Record<string, unknown>);
        if (typeof query.layout === 'string') query.layout = query.layout.trim().toLowerCase();
        request.query = query as typeof request.query;
      },
      schema: {
        tags: ['e-CF'],
        summary:
          'The printed representation (PDF) drawn from the signed XML: letter, pos (80 mm roll) or pos58 (58 mm roll); without layout, the tenant setting representation.default_layout (letter unless set)',
        params: IdParams,
        querystring: RepresentationQuery,
        produces: ['application/pdf'],
        response: {
          200: Type.String({ format: 'binary', description: 'The PDF (application/pdf), named {RNC}{e-NCF}.pdf in Content-Disposition' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const layout = request.query.layout === undefined ? undefined : layoutName(request.query.layout);
      const r = await ecfRepresentation(engine, request.tenantId, request.params.id, { layout });
      return reply
        .type('application/pdf')
        .header('content-disposition', `${request.query.download === true ? 'attachment' : 'inline'}; filename="${r.fileName}"`)
        .send(r.pdf as unknown as string); // a Buffer goes out unserialised, byte for byte
    },
  );
}
