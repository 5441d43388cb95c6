import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ExportJobView, ExportRequestBody, exportJobFile, getExportJob, requestExport } from '../../engine/export/index.js';
import { Uuid } from '../../engine/schema-types.js';
import { problems } from '../problem.js';

const IdParams = Type.Object({ id: Uuid() });

/** Period exports (an addition to the contract, issue 35): docs/contract/endpoints.md, "Period exports". */
export default async function exportRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/exports',
    {
      config: { access: 'exports.manage' },
      schema: {
        tags: ['Exports'],
        summary: 'Export a period (month, or from and to: Dominican days, both included) as one signed ZIP; made in the background: 202 with its status and links',
        body: ExportRequestBody,
        response: { 202: ExportJobView, ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(202).send(await requestExport(engine, request.tenantId, request.body)),
  );

  app.get(
    '/api/v1/exports/:id',
    {
      config: { access: 'exports.manage' },
      schema: {
        tags: ['Exports'],
        summary: 'An export: pending, running, ready or failed (with the reason)',
        params: IdParams,
        response: { 200: ExportJobView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getExportJob(engine, request.tenantId, request.params.id),
  );

  app.get(
    '/api/v1/exports/:id/file',
    {
      config: { access: 'exports.manage' },
      schema: {
        tags: ['Exports'],
        summary: 'The export\'s ZIP once ready (409 before, or when it failed); check it with `ecf export verify`',
        params: IdParams,
        produces: ['application/zip'],
        response: { 200: Type.String({ format: 'binary', description: 'The ZIP (application/zip)' }), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const file = await exportJobFile(engine, request.tenantId, request.params.id);
      return reply
        .type('application/zip')
        .header('content-length', String(file.bytes))
        .header('content-disposition', `attachment; filename="${file.name}"`)
        .send(createReadStream(file.path) as unknown as string); // streamed, never held whole
    },
  );
}
