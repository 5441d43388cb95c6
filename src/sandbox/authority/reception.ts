import type { FastifyPluginAsync } from 'fastify';
import { SANDBOX_CODES } from '../outcomes.js';
import { takeOutcome } from '../state.js';
import { receiveWithFaults } from '../transport.js';
import { readUpload } from '../upload.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';
import { FILE_NAME, recordDocument } from './received-document.js';

/**
 * recepcion (NOTES §4.1): an e-CF is taken and answered with a trackId at
 * once; its verdict waits for the result query (results.ts).
 */
export const receptionService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.post('/recepcion/api/facturaselectronicas', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    const name = FILE_NAME.exec(upload.fileName);
    if (!name) return reply.code(400).send({ trackId: null, error: String(SANDBOX_CODES.fileName), mensaje: 'La longitud del nombre del archivo no es válida' });
    const [, rnc, encfText] = name;
    const encf = encfText!.toUpperCase();
    const outcome = takeOutcome(sandbox.state, encf);
    const receive = () => recordDocument(sandbox, 'ecf', environment, rnc!, encf, upload, outcome);
    return receiveWithFaults(sandbox, request, reply, outcome, receive, (received) => ({ trackId: received.trackId }));
  });
};
