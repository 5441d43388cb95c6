import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context.js';
import { SANDBOX_TAXPAYER_NAME, SANDBOX_TAXPAYER_RNC } from '../taxpayer.js';
import type { DirectoryRecord } from '../types.js';
import { lowerKeys } from '../wire.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';

/**
 * consultadirectorio (NOTES §4.9): where each electronic taxpayer receives.
 * The playing taxpayer is always listed, at its receiver on this server,
 * unless an entry registered for its RNC replaces it.
 */
export const directoryService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.get('/consultadirectorio/api/consultas/obtenerdirectorioporrnc', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const rnc = lowerKeys(request.query).rnc ?? '';
    return reply.send(directoryEntries(sandbox, request).filter((e) => e.rnc === rnc));
  });

  app.get('/consultadirectorio/api/consultas/listado', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    return reply.send(directoryEntries(sandbox, request));
  });
};

function directoryEntries(sandbox: SandboxContext, request: FastifyRequest): DirectoryRecord[] {
  const { directory } = sandbox.state;
  const self = `${request.protocol}://${request.host}/taxpayer`;
  const own: DirectoryRecord = { rnc: SANDBOX_TAXPAYER_RNC, nombre: SANDBOX_TAXPAYER_NAME, urlRecepcion: self, urlAceptacion: self, urlOpcional: null };
  return [directory.get(SANDBOX_TAXPAYER_RNC) ?? own, ...[...directory.values()].filter((e) => e.rnc !== SANDBOX_TAXPAYER_RNC)];
}
