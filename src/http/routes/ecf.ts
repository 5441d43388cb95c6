import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../engine/engine.js';
import { IssueEcfCommand } from '../../engine/documents/payload.js';
import { ValidationResult, dryRunIssue } from '../../engine/documents/dry-run.js';
import { problems } from '../problem.js';

/** A 10,000-line credit note is a few megabytes of JSON. */
export const ECF_BODY_LIMIT = 16 * 1024 * 1024;

export default async function ecfRoutes(base: FastifyInstance, { engine }: { engine: Engine }) {
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
}
