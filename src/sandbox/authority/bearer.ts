import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext, SandboxPluginOptions } from '../context.js';
import type { SandboxEnvironment } from '../types.js';

/** What each authority service plugin receives: the sandbox, and the environment it serves under its prefix. */
export interface AuthorityServiceOptions extends SandboxPluginOptions {
  readonly environment: SandboxEnvironment;
}

/**
 * The token check every service but authentication makes (NOTES §3): a
 * bearer token issued in this environment, not revoked, not expired. A
 * refusal is counted, and answered 401 with an empty body as the authority does.
 */
export function bearerGuard(sandbox: SandboxContext, environment: SandboxEnvironment) {
  return {
    authorized(request: FastifyRequest): boolean {
      const m = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      const record = m ? sandbox.state.tokens.get(m[1]!) : undefined;
      const ok = !!record && !record.revoked && record.environment === environment && sandbox.now().getTime() < record.expiresAt;
      if (!ok) sandbox.state.stats.unauthorized++;
      return ok;
    },
    unauthorized: (reply: FastifyReply) => reply.code(401).header('www-authenticate', 'Bearer').send(''),
  };
}
