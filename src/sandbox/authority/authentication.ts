import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import { readUpload } from '../upload.js';
import { parseXml, textOf, verifySignature } from '../verify.js';
import { dotnetDateTime, isoSeconds } from '../wire.js';
import type { AuthorityServiceOptions } from './bearer.js';

/**
 * autenticacion (NOTES §2): a seed, then a token for the signed seed. Each
 * seed serves once, in the environment that issued it; a refusal is the
 * authority's bare "Firma del certificado invalida", with the sandbox's
 * reason in `x-sandbox-reason` for whoever debugs the client.
 */

const TOKEN_LIFETIME_MS = 3_600_000;
const MAX_SEEDS = 10_000;
const MAX_TOKENS = 1_000;

export const authenticationService: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  const { now } = sandbox;

  app.get('/autenticacion/api/autenticacion/semilla', async (_request, reply) => {
    const { state } = sandbox;
    const valor = randomBytes(96).toString('base64');
    state.seeds.set(valor, { environment, used: false });
    // A long-running sandbox keeps the newest seeds only.
    if (state.seeds.size > MAX_SEEDS) state.seeds.delete(state.seeds.keys().next().value!);
    state.stats.seedsIssued++;
    const xml =
      '<?xml version="1.0" encoding="utf-8"?>\r\n' +
      '<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\r\n' +
      `  <valor>${valor}</valor>\r\n` +
      `  <fecha>${dotnetDateTime(now())}</fecha>\r\n` +
      '</SemillaModel>';
    return reply.type('text/xml; charset=utf-8').send(xml);
  });

  app.post('/autenticacion/api/autenticacion/validarsemilla', async (request, reply) => {
    const refuse = (reason: string) => {
      sandbox.state.stats.seedRejections++;
      return reply.code(400).header('x-sandbox-reason', encodeURIComponent(reason)).type('text/plain; charset=utf-8').send('Firma del certificado invalida');
    };
    const upload = await readUpload(request);
    if ('error' in upload) return refuse(upload.error);
    const parsed = parseXml(upload.xml);
    if (!parsed.ok) return refuse(parsed.reason);
    if (parsed.root.localName !== 'SemillaModel') return refuse('the root is not SemillaModel');
    const schema = validateAgainstSchema('semilla', upload.xml);
    if (!schema.valid) return refuse(`schema: ${schema.errors.join('; ')}`);
    const at = now();
    const signature = verifySignature(upload.xml, parsed, at);
    if (!signature.ok) return refuse(signature.reason);
    const { state } = sandbox;
    const valor = textOf(parsed.root, 'valor') ?? '';
    const seed = state.seeds.get(valor);
    if (!seed || seed.environment !== environment) return refuse('the seed was not issued here');
    if (seed.used) return refuse('the seed was used already');
    seed.used = true;
    const token = randomBytes(48).toString('base64url');
    const expiresAt = at.getTime() + TOKEN_LIFETIME_MS;
    if (state.tokens.size >= MAX_TOKENS) {
      for (const [t, r] of state.tokens) if (r.expiresAt <= at.getTime() || r.revoked) state.tokens.delete(t);
    }
    state.tokens.set(token, { environment, expiresAt, revoked: false });
    state.stats.tokensIssued++;
    return reply.send({ token, expira: isoSeconds(new Date(expiresAt)), expedido: isoSeconds(at) });
  });
};
