import type { FastifyPluginAsync } from 'fastify';
import { STATUS } from '../judge/verdicts.js';
import { usedKey } from '../state.js';
import { lowerKeys, usStyle, wireAmount, wireMessage } from '../wire.js';
import { bearerGuard, type AuthorityServiceOptions } from './bearer.js';

/**
 * The queries on what was received (NOTES §4.2, §4.4, §4.6): the result of
 * a trackId (consultaresultado), the trackIds of an e-NCF
 * (consultatrackids), and the status of an e-NCF with its facts
 * (consultaestado). A scripted "En Proceso" is spent by result queries.
 * The RFCE's own query (consultarfce) is in rfce.ts.
 */
export const resultsService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { authorized, unauthorized } = bearerGuard(sandbox, environment);

  app.get('/consultaresultado/api/consultas/estado', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const { state } = sandbox;
    state.stats.resultQueries++;
    const q = lowerKeys(request.query);
    const trackId = q.trackid ?? '';
    const found = state.byTrackId.get(trackId);
    const s = found?.environment === environment ? found : undefined;
    if (!s) {
      return reply.send({ trackId, codigo: 0, estado: 'TrackId no encontrado.', rnc: null, encf: null, secuenciaUtilizada: false, fechaRecepcion: null, mensajes: [] });
    }
    const base = { trackId: s.trackId, rnc: s.rnc, encf: s.encf, fechaRecepcion: usStyle(s.receivedAt) };
    if (s.queriesInProcess > 0) {
      s.queriesInProcess--;
      return reply.send({ ...base, codigo: 3, estado: STATUS[3], secuenciaUtilizada: false, mensajes: [] });
    }
    return reply.send({
      ...base,
      codigo: s.verdict.code,
      estado: s.verdict.status,
      secuenciaUtilizada: s.verdict.sequenceUsed,
      mensajes: s.verdict.messages.map(wireMessage),
    });
  });

  app.get('/consultatrackids/api/trackids/consulta', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const q = lowerKeys(request.query);
    const missing: Record<string, string[]> = {};
    if (!q.rncemisor) missing.RncEmisor = ['El campo RNC Emisor es requerido'];
    if (!q.encf) missing.Encf = ['El campo ENCF es requerido'];
    if (Object.keys(missing).length) return reply.code(400).send({ title: 'One or more validation errors occurred.', status: 400, errors: missing });
    return reply.send(
      (sandbox.state.byEncf.get(usedKey(environment, q.rncemisor!, q.encf!.toUpperCase())) ?? [])
        .filter((s) => s.kind === 'ecf')
        .map((s) => ({
          trackId: s.trackId,
          estado: s.queriesInProcess > 0 ? STATUS[3] : s.verdict.status,
          fechaRecepcion: usStyle(s.receivedAt),
        })),
    );
  });

  app.get('/consultaestado/api/consultas/estado', async (request, reply) => {
    if (!authorized(request)) return unauthorized(reply);
    const q = lowerKeys(request.query);
    const missing: Record<string, string[]> = {};
    if (!q.rncemisor) missing.RncEmisor = ['El campo RNC Emisor es requerido'];
    if (!q.ncfelectronico) missing.NcfElectronico = ['El campo NCF Electrónico es requerido'];
    if (Object.keys(missing).length) return reply.code(400).send({ title: 'One or more validation errors occurred.', status: 400, errors: missing });
    const encf = q.ncfelectronico!.toUpperCase();
    const mine = (sandbox.state.byEncf.get(usedKey(environment, q.rncemisor!, encf)) ?? []).filter((s) => s.queriesInProcess === 0 && s.facts.securityCode !== null);
    // The newest that was not refused, else the newest: a refused resend must not hide the accepted document.
    const found = [...mine].reverse().find((s) => s.verdict.code !== 2) ?? mine.at(-1);
    const matches =
      found &&
      (!q.codigoseguridad || q.codigoseguridad === found.facts.securityCode) &&
      (!q.rnccomprador || q.rnccomprador === found.facts.buyerRnc);
    if (!found || !matches) {
      return reply.send({ codigo: 0, estado: STATUS[0], rncEmisor: q.rncemisor, ncfElectronico: encf, montoTotal: null, totalITBIS: null, fechaEmision: null, fechaFirma: null, rncComprador: null, codigoSeguridad: null, idExtranjero: null });
    }
    return reply.send({
      codigo: found.verdict.code,
      estado: found.verdict.status,
      rncEmisor: found.rnc,
      ncfElectronico: found.encf,
      montoTotal: wireAmount(found.facts.totalAmount),
      totalITBIS: wireAmount(found.facts.totalItbis),
      fechaEmision: found.facts.issuedOn,
      fechaFirma: found.facts.signedAt,
      rncComprador: found.facts.buyerRnc,
      codigoSeguridad: found.facts.securityCode,
      idExtranjero: found.facts.foreignId,
    });
  });
};
