import type { FastifyPluginAsync } from 'fastify';
import type { SandboxContext, SandboxPluginOptions } from './context.js';
import { checkApproval } from './judge/approval.js';
import { SANDBOX_TAXPAYER_RNC, makeForeignApproval, makeForeignEcf, sendToReceiver } from './taxpayer.js';
import type { SandboxTaxpayer } from './types.js';
import { readUpload } from './upload.js';
import { SERVICE_UNAVAILABLE } from './wire.js';

/**
 * The sandbox playing another taxpayer (taxpayer.ts makes its documents):
 * it issues e-CF to the appliance's receiver, and its own receiver takes
 * the ACECF that its buyers send back. Not the authority, so neither
 * delayed nor counted by the load (load.ts).
 */

export function createPlayingTaxpayer(sandbox: Pick<SandboxContext, 'state' | 'now' | 'identity'>): SandboxTaxpayer {
  const { now, identity } = sandbox;
  return {
    rnc: SANDBOX_TAXPAYER_RNC,
    certificatePem: () => identity().certificatePem,
    makeEcf(options) {
      const type = String(options.payload?.type ?? 31);
      const encf = options.encf ?? `E${type}${String(sandbox.state.nextEncf++).padStart(10, '0')}`;
      return { encf, ...makeForeignEcf(identity(), now(), { buyerRnc: options.buyerRnc, encf, ...(options.payload && { payload: options.payload }) }) };
    },
    makeApproval: (options) => makeForeignApproval(identity(), now(), options),
    sendEcf: (url, xml, o) =>
      sendToReceiver(identity(), url, 'recepcion/api/ecf', xml, { fileName: `${SANDBOX_TAXPAYER_RNC}${o.encf}.xml`, ...(o.authenticate !== undefined && { authenticate: o.authenticate }) }),
    sendApproval: (url, xml, o) =>
      sendToReceiver(identity(), url, 'aprobacioncomercial/api/ecf', xml, { fileName: `${SANDBOX_TAXPAYER_RNC}${o.encf}.xml`, ...(o.authenticate !== undefined && { authenticate: o.authenticate }) }),
    receivedApprovals: () => [...sandbox.state.taxpayerApprovals],
  };
}

export const playingTaxpayerRoutes: FastifyPluginAsync<SandboxPluginOptions> = async (app, { sandbox }) => {
  // Its own receiver: the ACECF its buyers send back.
  app.post('/taxpayer/fe/aprobacioncomercial/api/ecf', async (request, reply) => {
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    const { state } = sandbox;
    if (state.failApprovals.issuer > 0) {
      state.failApprovals.issuer--;
      return reply.code(503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
    }
    const problem = checkApproval(upload.xml, sandbox.now());
    if (problem) return reply.code(400).type('text/plain; charset=utf-8').send(problem);
    state.taxpayerApprovals.push({ fileName: upload.fileName, xml: upload.xml, receivedAt: sandbox.now() });
    return reply.code(200).send();
  });

  // A test's or a demo's way to make it issue one e-CF to a receiver.
  app.post('/_sandbox/taxpayer/send-ecf', async (request, reply) => {
    const body = request.body as { receiverUrl?: unknown; buyerRnc?: unknown; authenticate?: unknown } | undefined;
    if (typeof body?.receiverUrl !== 'string' || typeof body.buyerRnc !== 'string') {
      return reply.code(400).send({ error: 'invalid sandbox command', errors: ['receiverUrl and buyerRnc are required strings'] });
    }
    const made = sandbox.taxpayer.makeEcf({ buyerRnc: body.buyerRnc });
    const answer = await sandbox.taxpayer.sendEcf(body.receiverUrl, made.xml, { encf: made.encf, authenticate: body.authenticate === true });
    return { encf: made.encf, status: answer.status, body: answer.body };
  });
};
