import type { FastifyPluginAsync } from 'fastify';
import { STATUS } from '../judge/verdicts.js';
import { SANDBOX_CODES } from '../outcomes.js';
import { takeOutcome, type MutableSubmission } from '../state.js';
import { receiveWithFaults } from '../transport.js';
import { readUpload } from '../upload.js';
import { wireMessage } from '../wire.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';
import { FILE_NAME, recordDocument } from './received-document.js';

/**
 * recepcionfc (NOTES §4.3): the consumo summary (RFCE) of an invoice under
 * RD$250,000, answered with its verdict at once; it has no trackId. On the
 * fc host at the authority, on the same server here.
 */
export const rfceService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.post('/recepcionfc/api/recepcion/ecf', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    const name = FILE_NAME.exec(upload.fileName);
    if (!name) {
      return reply.code(400).send({
        codigo: 2,
        estado: STATUS[2],
        mensajes: [{ codigo: SANDBOX_CODES.fileName, valor: 'La longitud del nombre del archivo no es válida' }],
        encf: null,
        secuenciaUtilizada: false,
      });
    }
    const [, rnc, encfText] = name;
    const encf = encfText!.toUpperCase();
    const outcome = takeOutcome(sandbox.state, encf);
    const receive = () => recordDocument(sandbox, 'rfce', environment, rnc!, encf, upload, outcome);
    const answer = (s: MutableSubmission) => ({
      codigo: s.verdict.code,
      estado: s.verdict.status,
      mensajes: s.verdict.messages.map(wireMessage),
      encf: s.encf,
      secuenciaUtilizada: s.verdict.sequenceUsed,
    });
    return receiveWithFaults(sandbox, request, reply, outcome, receive, answer);
  });
};
