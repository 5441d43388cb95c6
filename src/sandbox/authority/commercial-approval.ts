import type { FastifyPluginAsync } from 'fastify';
import { checkApproval } from '../judge/approval.js';
import { readUpload } from '../upload.js';
import { SERVICE_UNAVAILABLE } from '../wire.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';

/**
 * aprobacioncomercial (NOTES §4.7, §10.3): a buyer's ACECF, copied to the
 * authority. Answered at once; in certecf an ACECF of an applicant's set is
 * also judged against its workbook row (Paso 3).
 */
export const commercialApprovalService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.post('/aprobacioncomercial/api/aprobacioncomercial', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    const { state } = sandbox;
    if (state.failApprovals.authority > 0) {
      state.failApprovals.authority--;
      return reply.code(503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
    }
    const problem = checkApproval(upload.xml, sandbox.now());
    if (problem) return reply.send({ mensaje: [problem], estado: 'Aprobación comercial rechazada', codigo: '02' });
    const judged = environment === 'certecf' ? sandbox.certification.judgeApproval(upload.xml) : null;
    if (judged && !judged.accepted) return reply.send({ mensaje: judged.messages, estado: 'Aprobación comercial rechazada', codigo: '02' });
    state.authorityApprovals.push({ fileName: upload.fileName, xml: upload.xml, receivedAt: sandbox.now() });
    return reply.send({ mensaje: [], estado: 'Aprobacion Comercial Aprobada.', codigo: '01' });
  });
};
