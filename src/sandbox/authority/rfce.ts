import type { FastifyPluginAsync } from 'fastify';
import { STATUS } from '../judge/verdicts.js';
import { SANDBOX_CODES } from '../outcomes.js';
import { takeOutcome, usedKey, type MutableSubmission } from '../state.js';
import { receiveWithFaults } from '../transport.js';
import { readUpload } from '../upload.js';
import { lowerKeys, wireMessage } from '../wire.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';
import { FILE_NAME, recordDocument } from './received-document.js';

/**
 * recepcionfc (NOTES §4.3): the consumo summary (RFCE) of an invoice under
 * RD$250,000, answered with its verdict at once; it has no trackId. And
 * consultarfce (§4.5), the summary's status by issuer, e-NCF and security
 * code, which third-party clients call. Both on the fc host at the
 * authority, on the same server here. The authority has consultarfce in
 * production only; here every environment answers it, so a client can be
 * tried against testecf.
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

  app.get('/consultarfce/api/Consultas/Consulta', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const q = lowerKeys(request.query);
    const missing: Record<string, string[]> = {};
    if (!q.rnc_emisor) missing.RNC_Emisor = ['El campo RNC Emisor es requerido'];
    if (!q.encf) missing.ENCF = ['El campo ENCF es requerido'];
    if (!q.cod_seguridad_ecf) missing.Cod_Seguridad_eCF = ['El campo Código de Seguridad es requerido'];
    if (Object.keys(missing).length) return reply.code(400).send({ title: 'One or more validation errors occurred.', status: 400, errors: missing });
    const encf = q.encf!.toUpperCase();
    const summaries = (sandbox.state.byEncf.get(usedKey(environment, q.rnc_emisor!, encf)) ?? []).filter((s) => s.kind === 'rfce');
    // As consultaestado: the newest that was not refused, else the newest, so a refused resend never hides the accepted summary.
    const found = [...summaries].reverse().find((s) => s.verdict.code !== 2) ?? summaries.at(-1);
    if (!found || found.facts.securityCode !== q.cod_seguridad_ecf) {
      return reply.send({ rnc: q.rnc_emisor, encf, secuenciaUtilizada: false, codigo: 0, estado: STATUS[0], mensajes: [] });
    }
    return reply.send({
      rnc: found.rnc,
      encf: found.encf,
      secuenciaUtilizada: found.verdict.sequenceUsed,
      codigo: found.verdict.code,
      estado: found.verdict.status,
      mensajes: found.verdict.messages.map(wireMessage),
    });
  });
};
