import type { FastifyPluginAsync } from 'fastify';
import { Value } from '@sinclair/typebox/value';
import type { SandboxPluginOptions } from './context.js';
import { AdminCommandSchema, LoadCommandSchema } from './outcomes.js';
import { schemaErrors } from './schema-errors.js';
import { isUnreachable } from './state.js';

/**
 * The sandbox's control over HTTP, for a sandbox in another process
 * (`ecf sandbox`): POST /_sandbox/script takes one command (outcomes.ts),
 * GET /_sandbox/state shows what the sandbox holds, without the XML.
 * The certification mode and the status host have their own control routes
 * beside their services (certification/routes.ts, status-services.ts).
 */
export const controlRoutes: FastifyPluginAsync<SandboxPluginOptions> = async (app, { sandbox }) => {
  const { control, gate, now } = sandbox;

  app.post('/_sandbox/script', async (request, reply) => {
    const body = request.body;
    // Checked on its own so the errors name the field, not only "no member of the union matched".
    if (body && typeof body === 'object' && 'load' in body) {
      if (!Value.Check(LoadCommandSchema, body)) return reply.code(400).send({ error: 'invalid sandbox command', errors: schemaErrors(LoadCommandSchema, body) });
      return { ok: true, load: control.setLoad(body.load) };
    }
    if (!Value.Check(AdminCommandSchema, body)) return reply.code(400).send({ error: 'invalid sandbox command', errors: schemaErrors(AdminCommandSchema, body) });
    if ('outcomes' in body) control.script(body);
    else if ('unreachable' in body) control.setUnreachable(body.unreachable, body.forMs);
    else if ('revokeTokens' in body) return { revoked: control.revokeTokens() };
    else if ('clearScripts' in body) control.clearScripts();
    else control.reset();
    return { ok: true };
  });

  app.get('/_sandbox/state', async () => {
    const { state } = sandbox;
    return {
      now: now().toISOString(),
      unreachable: isUnreachable(state),
      load: gate.load,
      inFlight: gate.inFlight,
      scripted: { next: state.next.length, perEncf: Object.fromEntries([...state.perEncf].map(([k, v]) => [k, v.length])) },
      stats: control.stats(),
      submissions: state.submissions.map(({ xml: _xml, ...rest }) => rest),
      annulments: state.annulments.map(({ xml: _xml, ...rest }) => rest),
    };
  });
};
