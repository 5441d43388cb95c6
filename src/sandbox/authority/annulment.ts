import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { SandboxContext } from '../context.js';
import { judgeAnnulment } from '../judge/annulment.js';
import type { SandboxOutcome } from '../outcomes.js';
import { takeOutcome } from '../state.js';
import { receiveWithFaults } from '../transport.js';
import type { SandboxAnnulment, SandboxEnvironment } from '../types.js';
import { readUpload } from '../upload.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';

/**
 * anulacionrangos (NOTES §11, §4.8): an ANECF annuls ranges of unused
 * e-NCF, answered at once. Scripts keyed by an e-NCF match the document's
 * first SecuenciaeNCFDesde.
 */
export const annulmentService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.post('/anulacionrangos/api/operaciones/anularrango', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    const first = /<SecuenciaeNCFDesde>\s*([^<\s]*)\s*<\/SecuenciaeNCFDesde>/.exec(upload.xml)?.[1]?.toUpperCase() ?? '';
    const outcome = takeOutcome(sandbox.state, first);
    const receive = () => recordAnnulment(sandbox, environment, upload, outcome);
    return receiveWithFaults(sandbox, request, reply, outcome, receive, (a) => {
      if (!a.annulled) reply.code(400);
      return { rnc: a.rnc, codigo: a.code, nombre: a.annulled ? 'Satisfactorio' : 'Rechazado', mensajes: a.messages };
    });
  });
};

function recordAnnulment(
  sandbox: SandboxContext,
  environment: SandboxEnvironment,
  upload: { fileName: string; xml: string },
  outcome: SandboxOutcome | undefined,
): SandboxAnnulment {
  const receivedAt = sandbox.now();
  const judged = judgeAnnulment(sandbox.state, environment, upload.xml, outcome, receivedAt);
  const annulment: SandboxAnnulment = { id: randomUUID(), environment, fileName: upload.fileName, xml: upload.xml, receivedAt, ...judged };
  sandbox.state.annulments.push(annulment);
  sandbox.state.stats.annulments++;
  return annulment;
}
