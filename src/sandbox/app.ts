import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { authorityServices } from './authority/index.js';
import { certificationRoutes } from './certification/routes.js';
import { createContext } from './create-context.js';
import { controlRoutes } from './control-routes.js';
import { playingTaxpayerRoutes } from './playing-taxpayer.js';
import { addTransportHooks } from './transport.js';
import { SANDBOX_ENVIRONMENTS, type SandboxControl, type SandboxOptions } from './types.js';
import { MAX_UPLOAD_BYTES } from './upload.js';

/**
 * A stand-in for the tax authority (NOTES §1–4, §9, §13) that speaks its
 * paths and payloads over real HTTP, so the engine's client is exercised as
 * it is in production: seed and token, e-CF reception with the verdict by
 * trackId, RFCE reception with an immediate verdict, the three queries, and
 * the annulment of ranges (ANECF, answered at once). Documents are checked
 * like the authority checks them (judge/: file name, official schema,
 * signature, e-NCF not used or annulled before); what happens next can be
 * scripted (outcomes.ts). All state is in memory (state.ts).
 *
 * In `/certecf` it is also the certification portal (certification/): for
 * an applicant RNC with a set, the documents of the set are judged field
 * by field against its workbook rows, and the portal's counters kept.
 *
 * Every environment is served under its path segment (`/testecf`,
 * `/certecf`, `/ecf`), one plugin per authority service (authority/).
 * Paths are case-insensitive, as the authority's are.
 *
 * This file only composes: the context (context.ts) is made once and
 * handed to every route plugin as its `sandbox` option (create-context.ts).
 */
export function buildSandbox(options: SandboxOptions = {}): { app: FastifyInstance; control: SandboxControl } {
  const sandbox = createContext(options);
  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { caseSensitive: false },
    forceCloseConnections: true,
    bodyLimit: MAX_UPLOAD_BYTES,
  });

  void app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, parts: 4, fields: 3 } });
  // On the root, not in a plugin: the unreachable switch and the load reach every route.
  addTransportHooks(app, sandbox);

  void app.register(controlRoutes, { sandbox });
  void app.register(sandbox.status.routes);
  void app.register(certificationRoutes, {
    mode: sandbox.certification,
    now: sandbox.now,
    identity: sandbox.identity,
    makeEcf: (buyerRnc) => sandbox.taxpayer.makeEcf({ buyerRnc }),
    accepted: (rnc, environment) =>
      sandbox.state.submissions
        .filter((s) => s.kind === 'ecf' && s.environment === environment && s.rnc === rnc && s.verdict.code === 1 && s.queriesInProcess === 0)
        .reverse()
        .map((s) => ({ encf: s.encf, issuedOn: s.facts.issuedOn, totalAmount: s.facts.totalAmount, buyerRnc: s.facts.buyerRnc })),
  });
  void app.register(playingTaxpayerRoutes, { sandbox });
  for (const environment of SANDBOX_ENVIRONMENTS) {
    void app.register(authorityServices, { sandbox, environment, prefix: `/${environment}` });
  }

  return { app, control: sandbox.control };
}

export interface StartSandboxOptions extends SandboxOptions {
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:43121 ; an environment's base URL is `${url}/testecf`. */
  readonly url: string;
  readonly control: SandboxControl;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Builds the sandbox and listens; 127.0.0.1 and a free port unless told otherwise. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { app, control } = buildSandbox(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return { url: `http://${shownHost}:${address.port}`, control, app, close: () => app.close() };
}
