import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import multipart from '@fastify/multipart';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../engine/clock.js';
import { validateAgainstSchema } from '../engine/xml/xsd.js';
import { DOCUMENT_KINDS, type DocumentKind } from '../engine/xml/schema-trees.generated.js';
import {
  AdminCommandSchema,
  LoadCommandSchema,
  SANDBOX_CODES,
  type FinalOutcome,
  type SandboxMessage,
  type SandboxOutcome,
  type SandboxScript,
} from './outcomes.js';
import type { Element } from '@xmldom/xmldom';
import { LoadGate, LoadSchema, NO_LOAD, OVERLOAD_BODY, applyLoad, serviceOf, type SandboxDelay, type SandboxLoad, type SandboxLoadInput } from './load.js';
import { parseXml, textOf, textsOf, verifySignature } from './verify.js';
import {
  SANDBOX_TAXPAYER_NAME,
  SANDBOX_TAXPAYER_RNC,
  makeForeignApproval,
  makeForeignEcf,
  makeTaxpayerIdentity,
  sendToReceiver,
  type ForeignApprovalOptions,
  type ReceiverAnswer,
  type TaxpayerIdentity,
} from './taxpayer.js';
import { CertificationMode, type CertificationSources } from './certification/mode.js';
import { certificationRoutes } from './certification/routes.js';
import { certificationSources } from './certification/sources.js';
import { createStatusServices, type SandboxStatusControl } from './status-services.js';

/**
 * A stand-in for the tax authority (NOTES §1–4, §9, §13) that speaks its
 * paths and payloads over real HTTP, so the engine's client is exercised as
 * it is in production: seed and token, e-CF reception with the verdict by
 * trackId, RFCE reception with an immediate verdict, the three queries, and
 * the annulment of ranges (ANECF, answered at once). Documents are checked
 * like the authority checks them (file name, official schema, signature,
 * e-NCF not used or annulled before); what happens next can be scripted
 * (outcomes.ts). All state is in memory.
 *
 * In `/certecf` it is also the certification portal (certification/): for
 * an applicant RNC with a set, the documents of the set are judged field
 * by field against its workbook rows, and the portal's counters kept.
 *
 * Every environment is served under its path segment (`/testecf`,
 * `/certecf`, `/ecf`), main-host and fc-host services on the same server,
 * so a client's base URL and fc URL are both `{sandbox}/{segment}`. Paths
 * are case-insensitive, as the authority's are.
 */

export const SANDBOX_ENVIRONMENTS = ['testecf', 'certecf', 'ecf'] as const;
export type SandboxEnvironment = (typeof SANDBOX_ENVIRONMENTS)[number];

export interface SandboxOptions {
  /** The sandbox's "now" (seed dates, token lifetimes, receipt times, certificate validity). */
  readonly clock?: Clock;
  /** Same as `clock`, as a function; `clock` wins when both are given. */
  readonly now?: () => Date;
  readonly logger?: FastifyServerOptions['logger'];
  /** The authority's latency and limits (load.ts); none unless given. Invalid settings throw, naming the field. */
  readonly load?: SandboxLoadInput;
  /** How a delayed request waits; a timer by default (ended early when the sandbox closes). Tests inject one to see the delays. */
  readonly delay?: SandboxDelay;
  /** The jitter's source of numbers in [0, 1); Math.random by default. */
  readonly random?: () => number;
  /**
   * How many of the newest e-CF and RFCE received keep their XML in memory
   * (1,000 by default); older ones keep their verdict and facts, and their
   * `xml` becomes ''. At ~10–20 KB a document, keeping them all would make a
   * long drain through an in-process sandbox grow by gigabytes.
   */
  readonly keepXml?: number;
  /** Where the certification mode gets its workbooks and reads documents back into columns (certification/sources.ts by default). */
  readonly certification?: CertificationSources;
  /** The key the status services (statusecf) accept; SANDBOX_STATUS_API_KEY by default. */
  readonly statusApiKey?: string;
}

export interface SandboxVerdict {
  readonly code: 1 | 2 | 4;
  readonly status: string;
  readonly sequenceUsed: boolean;
  readonly messages: readonly SandboxMessage[];
}

/** A document the sandbox received, with the verdict it will give. */
export interface SandboxSubmission {
  readonly id: string;
  /** null for an RFCE, which has none. */
  readonly trackId: string | null;
  readonly environment: SandboxEnvironment;
  readonly kind: 'ecf' | 'rfce';
  readonly rnc: string;
  readonly encf: string;
  readonly fileName: string;
  /** As received; '' once older than the newest `keepXml` documents (SandboxOptions). */
  readonly xml: string;
  readonly receivedAt: Date;
  readonly verdict: SandboxVerdict;
  /** Result queries that still answer "En Proceso". */
  readonly queriesInProcess: number;
  readonly facts: DocumentFacts;
}

export interface DocumentFacts {
  readonly totalAmount: string | null;
  readonly totalItbis: string | null;
  readonly issuedOn: string | null;
  readonly signedAt: string | null;
  readonly buyerRnc: string | null;
  readonly foreignId: string | null;
  readonly securityCode: string | null;
}

/** An ANECF the sandbox received, with its answer. */
export interface SandboxAnnulment {
  readonly id: string;
  readonly environment: SandboxEnvironment;
  /** RncEmisor as the document says; null when it could not be read. */
  readonly rnc: string | null;
  readonly fileName: string;
  readonly xml: string;
  readonly receivedAt: Date;
  /** true: the numbers are annulled (codigo 15); false: refused. */
  readonly annulled: boolean;
  readonly code: string;
  readonly messages: readonly string[];
  /** The ranges the document names (empty when it could not be read). */
  readonly ranges: readonly { readonly type: number; readonly from: number; readonly to: number }[];
}

export interface SandboxStats {
  readonly seedsIssued: number;
  readonly tokensIssued: number;
  readonly seedRejections: number;
  readonly unauthorized: number;
  readonly receptions: number;
  readonly rfceReceptions: number;
  readonly resultQueries: number;
  readonly annulments: number;
  /** Requests answered 429/503 because `maxInFlight` were in flight already. */
  readonly overloaded: number;
  /** Requests that waited a latency above zero. */
  readonly delayed: number;
  /** The most authority requests in flight at once (waiting included), since the start or the last reset. */
  readonly maxInFlightSeen: number;
}

export interface SandboxControl {
  /** Queues outcomes for one e-NCF, or (without `encf`) for the next documents. */
  script(script: SandboxScript): void;
  clearScripts(): void;
  /** Closes every connection on its first request (except /_sandbox/*) until turned off, or for `forMs`. */
  setUnreachable(on: boolean, forMs?: number): void;
  /** Every token issued so far answers 401 from now on; returns how many were valid. */
  revokeTokens(): number;
  /** The tokens issued, oldest first (tests check that they never leak). */
  issuedTokens(): string[];
  submissions(filter?: { readonly encf?: string; readonly environment?: SandboxEnvironment }): readonly SandboxSubmission[];
  /** The ANECF received, oldest first, refused ones included. */
  annulments(filter?: { readonly environment?: SandboxEnvironment }): readonly SandboxAnnulment[];
  stats(): SandboxStats;
  /**
   * Changes the latency and limits (load.ts: what is given replaces what is
   * in force) and returns the settings now in force; invalid settings throw,
   * naming the field.
   */
  setLoad(change: SandboxLoadInput): SandboxLoad;
  load(): SandboxLoad;
  /** Authority requests in flight now, those waiting their latency included. */
  inFlight(): number;
  /** Forgets everything: seeds, tokens, documents, scripts, counters. The latency and limits stay as they are. */
  reset(): void;
  now(): Date;
  /** The sandbox as another taxpayer (taxpayer.ts). */
  readonly taxpayer: SandboxTaxpayer;
  /** Adds or replaces a directory entry (consultadirectorio); the sandbox taxpayer is always listed. */
  registerTaxpayer(entry: DirectoryRecord): void;
  /** ACECF received by the authority's aprobacioncomercial service. */
  approvals(): readonly ReceivedApproval[];
  /** The next `n` ACECF answer 503: at the sandbox taxpayer's receiver (`issuer`) or at the authority. */
  failApprovals(where: 'issuer' | 'authority', n: number): void;
  /** The certification mode (certification/mode.ts): sets per applicant RNC, judged in certecf. */
  readonly certification: CertificationMode;
  /** The status host's services (status-services.ts): environments' status, maintenance windows, the API key. */
  readonly status: SandboxStatusControl;
}

export interface DirectoryRecord {
  readonly rnc: string;
  readonly nombre: string;
  readonly urlRecepcion: string | null;
  readonly urlAceptacion: string | null;
  readonly urlOpcional: string | null;
}

export interface ReceivedApproval {
  readonly fileName: string;
  readonly xml: string;
  readonly receivedAt: Date;
}

export interface SandboxTaxpayer {
  readonly rnc: string;
  /** Its signing certificate (PEM), to verify what it signs. */
  certificatePem(): string;
  /** A signed e-CF from it to `buyerRnc`; numbers E31… in turn unless `encf` is given. */
  makeEcf(options: { buyerRnc: string; encf?: string; payload?: Record<string, unknown> }): { xml: string; encf: string; montoTotal: string; issueDate: string };
  /** A signed ACECF from it, as buyer, over an e-CF of `issuerRnc`. */
  makeApproval(options: ForeignApprovalOptions): string;
  /** Sends a signed e-CF to a receiver base URL (`{receiverUrl}/fe/recepcion/api/ecf`). */
  sendEcf(receiverUrl: string, xml: string, options: { encf: string; authenticate?: boolean }): Promise<ReceiverAnswer>;
  /** Sends a signed ACECF to a receiver base URL (`{receiverUrl}/fe/aprobacioncomercial/api/ecf`). */
  sendApproval(receiverUrl: string, xml: string, options: { encf: string; authenticate?: boolean }): Promise<ReceiverAnswer>;
  /** ACECF its receiver accepted (valid schema and signature), oldest first. */
  receivedApprovals(): readonly ReceivedApproval[];
}

const TOKEN_LIFETIME_MS = 3_600_000;
const MAX_SEEDS = 10_000;
const MAX_TOKENS = 1_000;
const DEFAULT_HANG_MS = 60_000;
const DEFAULT_KEEP_XML = 1_000;
const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
const CONSUMER_SUMMARY_LIMIT = 250_000;
const FILE_NAME = /^(\d{9}|\d{11})(E\d{12})\.xml$/i;

const STATUS: Record<0 | 1 | 2 | 3 | 4, string> = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
};

interface SeedRecord {
  readonly environment: SandboxEnvironment;
  used: boolean;
}
interface TokenRecord {
  readonly environment: SandboxEnvironment;
  readonly expiresAt: number;
  revoked: boolean;
}
interface MutableSubmission extends Omit<SandboxSubmission, 'queriesInProcess' | 'xml'> {
  queriesInProcess: number;
  xml: string;
}

interface State {
  directory: Map<string, DirectoryRecord>;
  authorityApprovals: ReceivedApproval[];
  taxpayerApprovals: ReceivedApproval[];
  failApprovals: { issuer: number; authority: number };
  nextEncf: number;
  seeds: Map<string, SeedRecord>;
  tokens: Map<string, TokenRecord>;
  submissions: MutableSubmission[];
  /** The e-CF submissions by trackId, for the result query. */
  byTrackId: Map<string, MutableSubmission>;
  /** Every submission of an e-NCF (usedKey), oldest first, for the queries by e-NCF. */
  byEncf: Map<string, MutableSubmission[]>;
  used: Set<string>;
  annulments: SandboxAnnulment[];
  next: SandboxOutcome[];
  perEncf: Map<string, SandboxOutcome[]>;
  unreachable: boolean;
  unreachableUntil: number | null;
  stats: { -readonly [K in Exclude<keyof SandboxStats, 'overloaded' | 'delayed' | 'maxInFlightSeen'>]: number };
}

const freshState = (): State => ({
  directory: new Map(),
  authorityApprovals: [],
  taxpayerApprovals: [],
  failApprovals: { issuer: 0, authority: 0 },
  nextEncf: 1,
  seeds: new Map(),
  tokens: new Map(),
  submissions: [],
  byTrackId: new Map(),
  byEncf: new Map(),
  used: new Set(),
  annulments: [],
  next: [],
  perEncf: new Map(),
  unreachable: false,
  unreachableUntil: null,
  stats: { seedsIssued: 0, tokensIssued: 0, seedRejections: 0, unauthorized: 0, receptions: 0, rfceReceptions: 0, resultQueries: 0, annulments: 0 },
});

export function buildSandbox(options: SandboxOptions = {}): { app: FastifyInstance; control: SandboxControl } {
  const now = (): Date => options.clock?.now() ?? options.now?.() ?? new Date();
  let state = freshState();
  const hangs = new Set<() => void>();
  const keepXml = Math.max(0, options.keepXml ?? DEFAULT_KEEP_XML);
  const gate = new LoadGate(options.load ? checkedLoad(NO_LOAD, options.load, 'load') : NO_LOAD, options.random);
  /** The default wait: a timer that the sandbox's close ends early, so closing never waits for latencies. */
  const wait: SandboxDelay =
    options.delay ??
    ((ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          hangs.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        hangs.add(done);
      }));
  let identity: TaxpayerIdentity | undefined;
  const taxpayerIdentity = (): TaxpayerIdentity => (identity ??= makeTaxpayerIdentity(now()));
  const certification = new CertificationMode(options.certification ?? certificationSources, now);
  const statusServices = createStatusServices(now, options.statusApiKey);
  const taxpayer: SandboxTaxpayer = {
    rnc: SANDBOX_TAXPAYER_RNC,
    certificatePem: () => taxpayerIdentity().certificatePem,
    makeEcf(options) {
      const type = String(options.payload?.type ?? 31);
      const encf = options.encf ?? `E${type}${String(state.nextEncf++).padStart(10, '0')}`;
      return { encf, ...makeForeignEcf(taxpayerIdentity(), now(), { buyerRnc: options.buyerRnc, encf, ...(options.payload && { payload: options.payload }) }) };
    },
    makeApproval: (options) => makeForeignApproval(taxpayerIdentity(), now(), options),
    sendEcf: (url, xml, o) =>
      sendToReceiver(taxpayerIdentity(), url, 'recepcion/api/ecf', xml, { fileName: `${SANDBOX_TAXPAYER_RNC}${o.encf}.xml`, ...(o.authenticate !== undefined && { authenticate: o.authenticate }) }),
    sendApproval: (url, xml, o) =>
      sendToReceiver(taxpayerIdentity(), url, 'aprobacioncomercial/api/ecf', xml, { fileName: `${SANDBOX_TAXPAYER_RNC}${o.encf}.xml`, ...(o.authenticate !== undefined && { authenticate: o.authenticate }) }),
    receivedApprovals: () => [...state.taxpayerApprovals],
  };

  const isUnreachable = (): boolean => {
    if (state.unreachable && state.unreachableUntil !== null && Date.now() >= state.unreachableUntil) {
      state.unreachable = false;
      state.unreachableUntil = null;
    }
    return state.unreachable;
  };

  const control: SandboxControl = {
    script(script) {
      if (script.encf) {
        const queue = state.perEncf.get(script.encf) ?? [];
        queue.push(...script.outcomes);
        state.perEncf.set(script.encf, queue);
      } else {
        state.next.push(...script.outcomes);
      }
    },
    clearScripts() {
      state.next = [];
      state.perEncf.clear();
    },
    setUnreachable(on, forMs) {
      state.unreachable = on;
      state.unreachableUntil = on && forMs ? Date.now() + forMs : null;
    },
    revokeTokens() {
      let n = 0;
      const t = now().getTime();
      for (const record of state.tokens.values()) {
        if (!record.revoked && t < record.expiresAt) n++;
        record.revoked = true;
      }
      return n;
    },
    issuedTokens: () => [...state.tokens.keys()],
    submissions(filter = {}) {
      return state.submissions
        .filter((s) => (!filter.encf || s.encf === filter.encf) && (!filter.environment || s.environment === filter.environment))
        .map((s) => ({ ...s }));
    },
    annulments(filter = {}) {
      return state.annulments.filter((a) => !filter.environment || a.environment === filter.environment).map((a) => ({ ...a }));
    },
    stats: () => ({ ...state.stats, ...gate.stats }),
    setLoad(change) {
      gate.load = checkedLoad(gate.load, change, 'load');
      return gate.load;
    },
    load: () => gate.load,
    inFlight: () => gate.inFlight,
    reset() {
      state = freshState();
      certification.forget();
      statusServices.control.reset();
      gate.resetStats();
    },
    now,
    taxpayer,
    registerTaxpayer(entry) {
      state.directory.set(entry.rnc, entry);
    },
    approvals: () => [...state.authorityApprovals],
    failApprovals(where, n) {
      state.failApprovals[where] = n;
    },
    certification,
    status: statusServices.control,
  };

  /** Checks an uploaded ACECF as the authority would: well-formed, its schema, its signature. */
  const checkApproval = (xml: string): string | null => {
    const parsed = parseXml(xml);
    if (!parsed.ok) return parsed.reason;
    if (parsed.root.localName !== 'ACECF') return 'the root is not ACECF';
    const schema = validateAgainstSchema('acecf', xml);
    if (!schema.valid) return `El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`;
    const signature = verifySignature(xml, parsed, now());
    return signature.ok ? null : `La firma digital del XML no es válida: ${signature.reason}`;
  };

  /** The directory: the sandbox taxpayer (its receiver on this server) and whatever was registered. */
  const directoryEntries = (request: FastifyRequest): DirectoryRecord[] => {
    const self = `${request.protocol}://${request.host}/taxpayer`;
    const own: DirectoryRecord = { rnc: SANDBOX_TAXPAYER_RNC, nombre: SANDBOX_TAXPAYER_NAME, urlRecepcion: self, urlAceptacion: self, urlOpcional: null };
    return [state.directory.get(SANDBOX_TAXPAYER_RNC) ?? own, ...[...state.directory.values()].filter((e) => e.rnc !== SANDBOX_TAXPAYER_RNC)];
  };

  const take = (encf: string): SandboxOutcome | undefined => {
    const queue = state.perEncf.get(encf);
    if (queue?.length) {
      const outcome = queue.shift();
      if (!queue.length) state.perEncf.delete(encf);
      return outcome;
    }
    return state.next.shift();
  };

  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { caseSensitive: false },
    forceCloseConnections: true,
    bodyLimit: MAX_UPLOAD_BYTES,
  });

  void app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, parts: 4, fields: 3 } });

  // Unreachable: every connection is closed on its first request, without an answer.
  // Then the load: over the cap, an answer at once; otherwise the request is in flight, and waits its latency.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/_sandbox/')) return;
    if (isUnreachable()) return drop(request, reply);
    const service = serviceOf(request.url);
    if (!service) return;
    const admitted = gate.admit(service);
    if ('refused' in admitted) {
      return reply.code(admitted.refused).header('retry-after', '1').type('text/html; charset=utf-8').send(OVERLOAD_BODY[admitted.refused]);
    }
    // 'close' comes once the answer is written or the connection is gone, whichever way the exchange ends.
    reply.raw.once('close', admitted.leave);
    if (admitted.delayMs > 0) await wait(admitted.delayMs, service);
  });
  app.addHook('onClose', async () => {
    for (const cancel of [...hangs]) cancel();
  });

  /** Holds the request `ms`; false when the client went away (or the sandbox closed) first. */
  const hang = (request: FastifyRequest, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = request.raw.socket;
      const done = (stillThere: boolean) => {
        clearTimeout(timer);
        socket.off('close', onClose);
        hangs.delete(cancel);
        resolve(stillThere);
      };
      const onClose = () => done(false);
      const cancel = () => done(false);
      const timer = setTimeout(() => done(!socket.destroyed), ms);
      hangs.add(cancel);
      socket.once('close', onClose);
    });

  // ---- admin

  app.post('/_sandbox/script', async (request, reply) => {
    const body = request.body;
    // Checked on its own so the errors name the field, not only "no member of the union matched".
    if (body && typeof body === 'object' && 'load' in body) {
      if (!Value.Check(LoadCommandSchema, body)) return reply.code(400).send({ error: 'invalid sandbox command', errors: schemaErrors(LoadCommandSchema, body) });
      return { ok: true, load: control.setLoad(body.load) };
    }
    if (!Value.Check(AdminCommandSchema, body)) {
      const errors = [...Value.Errors(AdminCommandSchema, body)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
      return reply.code(400).send({ error: 'invalid sandbox command', errors });
    }
    if ('outcomes' in body) control.script(body);
    else if ('unreachable' in body) control.setUnreachable(body.unreachable, body.forMs);
    else if ('revokeTokens' in body) return { revoked: control.revokeTokens() };
    else if ('clearScripts' in body) control.clearScripts();
    else control.reset();
    return { ok: true };
  });

  app.get('/_sandbox/state', async () => ({
    now: now().toISOString(),
    unreachable: isUnreachable(),
    load: gate.load,
    inFlight: gate.inFlight,
    scripted: { next: state.next.length, perEncf: Object.fromEntries([...state.perEncf].map(([k, v]) => [k, v.length])) },
    stats: control.stats(),
    submissions: state.submissions.map(({ xml: _xml, ...rest }) => rest),
    annulments: state.annulments.map(({ xml: _xml, ...rest }) => rest),
  }));

  statusServices.register(app);

  certificationRoutes(app, {
    mode: certification,
    now,
    identity: taxpayerIdentity,
    makeEcf: (buyerRnc) => taxpayer.makeEcf({ buyerRnc }),
    accepted: (rnc, environment) =>
      state.submissions
        .filter((s) => s.kind === 'ecf' && s.environment === environment && s.rnc === rnc && s.verdict.code === 1 && s.queriesInProcess === 0)
        .reverse()
        .map((s) => ({ encf: s.encf, issuedOn: s.facts.issuedOn, totalAmount: s.facts.totalAmount, buyerRnc: s.facts.buyerRnc })),
  });

  // ---- the sandbox taxpayer's own receiver: the ACECF its buyers send back
  app.post('/taxpayer/fe/aprobacioncomercial/api/ecf', async (request, reply) => {
    const upload = await readUpload(request);
    if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
    if (state.failApprovals.issuer > 0) {
      state.failApprovals.issuer--;
      return reply.code(503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
    }
    const problem = checkApproval(upload.xml);
    if (problem) return reply.code(400).type('text/plain; charset=utf-8').send(problem);
    state.taxpayerApprovals.push({ fileName: upload.fileName, xml: upload.xml, receivedAt: now() });
    return reply.code(200).send();
  });

  app.post('/_sandbox/taxpayer/send-ecf', async (request, reply) => {
    const body = request.body as { receiverUrl?: unknown; buyerRnc?: unknown; authenticate?: unknown } | undefined;
    if (typeof body?.receiverUrl !== 'string' || typeof body.buyerRnc !== 'string') {
      return reply.code(400).send({ error: 'invalid sandbox command', errors: ['receiverUrl and buyerRnc are required strings'] });
    }
    const made = taxpayer.makeEcf({ buyerRnc: body.buyerRnc });
    const answer = await taxpayer.sendEcf(body.receiverUrl, made.xml, { encf: made.encf, authenticate: body.authenticate === true });
    return { encf: made.encf, status: answer.status, body: answer.body };
  });

  // ---- the authority's services, per environment

  for (const environment of SANDBOX_ENVIRONMENTS) {
    void app.register(
      async (r) => {
        const authorized = (request: FastifyRequest): boolean => {
          const m = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
          const record = m ? state.tokens.get(m[1]!) : undefined;
          const ok = !!record && !record.revoked && record.environment === environment && now().getTime() < record.expiresAt;
          if (!ok) state.stats.unauthorized++;
          return ok;
        };
        const unauthorized = (reply: FastifyReply) => reply.code(401).header('www-authenticate', 'Bearer').send('');

        r.get('/autenticacion/api/autenticacion/semilla', async (_request, reply) => {
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

        r.post('/autenticacion/api/autenticacion/validarsemilla', async (request, reply) => {
          const refuse = (reason: string) => {
            state.stats.seedRejections++;
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

        r.post('/recepcion/api/facturaselectronicas', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const upload = await readUpload(request);
          if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
          const name = FILE_NAME.exec(upload.fileName);
          if (!name) return reply.code(400).send({ trackId: null, error: String(SANDBOX_CODES.fileName), mensaje: 'La longitud del nombre del archivo no es válida' });
          const [, rnc, encfText] = name;
          const encf = encfText!.toUpperCase();
          const outcome = take(encf);
          const receive = () => record('ecf', environment, rnc!, encf, upload, outcome);

          return receiveWithFaults(request, reply, outcome, receive, (received) => ({ trackId: received.trackId }));
        });

        r.post('/recepcionfc/api/recepcion/ecf', async (request, reply) => {
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
          const outcome = take(encf);
          const receive = () => record('rfce', environment, rnc!, encf, upload, outcome);
          const answer = (s: MutableSubmission) => ({
            codigo: s.verdict.code,
            estado: s.verdict.status,
            mensajes: s.verdict.messages.map(wireMessage),
            encf: s.encf,
            secuenciaUtilizada: s.verdict.sequenceUsed,
          });

          return receiveWithFaults(request, reply, outcome, receive, answer);
        });

        r.get('/consultaresultado/api/consultas/estado', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
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

        r.get('/consultatrackids/api/trackids/consulta', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const q = lowerKeys(request.query);
          const missing: Record<string, string[]> = {};
          if (!q.rncemisor) missing.RncEmisor = ['El campo RNC Emisor es requerido'];
          if (!q.encf) missing.Encf = ['El campo ENCF es requerido'];
          if (Object.keys(missing).length) return reply.code(400).send({ title: 'One or more validation errors occurred.', status: 400, errors: missing });
          return reply.send(
            (state.byEncf.get(usedKey(environment, q.rncemisor!, q.encf!.toUpperCase())) ?? [])
              .filter((s) => s.kind === 'ecf')
              .map((s) => ({
                trackId: s.trackId,
                estado: s.queriesInProcess > 0 ? STATUS[3] : s.verdict.status,
                fechaRecepcion: usStyle(s.receivedAt),
              })),
          );
        });

        r.get('/consultaestado/api/consultas/estado', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const q = lowerKeys(request.query);
          const missing: Record<string, string[]> = {};
          if (!q.rncemisor) missing.RncEmisor = ['El campo RNC Emisor es requerido'];
          if (!q.ncfelectronico) missing.NcfElectronico = ['El campo NCF Electrónico es requerido'];
          if (Object.keys(missing).length) return reply.code(400).send({ title: 'One or more validation errors occurred.', status: 400, errors: missing });
          const encf = q.ncfelectronico!.toUpperCase();
          const mine = (state.byEncf.get(usedKey(environment, q.rncemisor!, encf)) ?? []).filter((s) => s.queriesInProcess === 0 && s.facts.securityCode !== null);
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
            montoTotal: found.facts.totalAmount,
            totalITBIS: found.facts.totalItbis,
            fechaEmision: found.facts.issuedOn,
            fechaFirma: found.facts.signedAt,
            rncComprador: found.facts.buyerRnc,
            codigoSeguridad: found.facts.securityCode,
            idExtranjero: found.facts.foreignId,
          });
        });

        // ANECF (NOTES §11, §4.8): the answer comes at once; scripts keyed by an e-NCF match the document's first SecuenciaeNCFDesde.
        r.post('/anulacionrangos/api/operaciones/anularrango', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const upload = await readUpload(request);
          if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
          const first = /<SecuenciaeNCFDesde>\s*([^<\s]*)\s*<\/SecuenciaeNCFDesde>/.exec(upload.xml)?.[1]?.toUpperCase() ?? '';
          const outcome = take(first);
          const receive = () => recordAnnulment(environment, upload, outcome);
          return receiveWithFaults(request, reply, outcome, receive, (a) => {
            if (!a.annulled) reply.code(400);
            return { rnc: a.rnc, codigo: a.code, nombre: a.annulled ? 'Satisfactorio' : 'Rechazado', mensajes: a.messages };
          });
        });

        r.post('/aprobacioncomercial/api/aprobacioncomercial', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const upload = await readUpload(request);
          if ('error' in upload) return reply.code(400).type('text/plain; charset=utf-8').send(upload.error);
          if (state.failApprovals.authority > 0) {
            state.failApprovals.authority--;
            return reply.code(503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
          }
          const problem = checkApproval(upload.xml);
          if (problem) return reply.send({ mensaje: [problem], estado: 'Aprobación comercial rechazada', codigo: '02' });
          // Paso 3: an ACECF of an applicant's set is judged against its row.
          const judged = environment === 'certecf' ? certification.judgeApproval(upload.xml) : null;
          if (judged && !judged.accepted) return reply.send({ mensaje: judged.messages, estado: 'Aprobación comercial rechazada', codigo: '02' });
          state.authorityApprovals.push({ fileName: upload.fileName, xml: upload.xml, receivedAt: now() });
          return reply.send({ mensaje: [], estado: 'Aprobacion Comercial Aprobada.', codigo: '01' });
        });

        r.get('/consultadirectorio/api/consultas/obtenerdirectorioporrnc', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          const rnc = lowerKeys(request.query).rnc ?? '';
          return reply.send(directoryEntries(request).filter((e) => e.rnc === rnc));
        });

        r.get('/consultadirectorio/api/consultas/listado', async (request, reply) => {
          if (!authorized(request)) return unauthorized(reply);
          return reply.send(directoryEntries(request));
        });
      },
      { prefix: `/${environment}` },
    );
  }

  /** Records a received document with the verdict it gets: the checks first, then the scripted outcome. */
  /**
   * Both receptions answer the scripted transport faults the same way (5xx,
   * unreachable, lost response, timeout); otherwise they record the document
   * and answer with `respond`.
   */
  async function receiveWithFaults<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: SandboxOutcome | undefined,
    receive: () => T,
    respond: (received: T) => unknown,
  ): Promise<FastifyReply> {
    switch (outcome?.kind) {
      case 'http5xx':
        return reply.code(outcome.status ?? 503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
      case 'unreachable':
        control.setUnreachable(true, outcome.forMs);
        return drop(request, reply);
      case 'lostResponse':
        receive();
        return drop(request, reply);
      case 'timeout': {
        const received = outcome.received ? receive() : null;
        const stillThere = await hang(request, outcome.ms ?? DEFAULT_HANG_MS);
        if (!stillThere) return drop(request, reply);
        if (received) return reply.send(respond(received));
        return reply.code(504).type('text/html; charset=utf-8').send(GATEWAY_TIMEOUT);
      }
      default:
        return reply.send(respond(receive()));
    }
  }

  function record(
    kind: 'ecf' | 'rfce',
    environment: SandboxEnvironment,
    rnc: string,
    encf: string,
    upload: { fileName: string; xml: string },
    outcome: SandboxOutcome | undefined,
  ): MutableSubmission {
    const receivedAt = now();
    const judged = judge(kind, environment, rnc, encf, upload.xml, outcome, receivedAt);
    if (judged.verdict.sequenceUsed) state.used.add(usedKey(environment, rnc, encf));
    if (environment === 'certecf') {
      const transient = outcome?.kind === 'transientReject' && judged.verdict.messages[0]?.code === (outcome.code ?? SANDBOX_CODES.transient);
      certification.settle(
        { kind, rnc, encf, code: judged.verdict.code, messages: judged.verdict.messages, transient, totalAmount: judged.facts.totalAmount },
        judged.facts.securityCode,
      );
    }
    const submission: MutableSubmission = {
      id: randomUUID(),
      trackId: kind === 'ecf' ? randomUUID() : null,
      environment,
      kind,
      rnc,
      encf,
      fileName: upload.fileName,
      xml: upload.xml,
      receivedAt,
      verdict: judged.verdict,
      queriesInProcess: kind === 'ecf' ? judged.queriesInProcess : 0,
      facts: judged.facts,
    };
    state.submissions.push(submission);
    const released = state.submissions[state.submissions.length - 1 - keepXml];
    if (released) released.xml = '';
    if (submission.trackId) state.byTrackId.set(submission.trackId, submission);
    const key = usedKey(environment, rnc, encf);
    const same = state.byEncf.get(key);
    if (same) same.push(submission);
    else state.byEncf.set(key, [submission]);
    if (kind === 'ecf') state.stats.receptions++;
    else state.stats.rfceReceptions++;
    return submission;
  }

  function judge(
    kind: 'ecf' | 'rfce',
    environment: SandboxEnvironment,
    rnc: string,
    encf: string,
    xml: string,
    outcome: SandboxOutcome | undefined,
    at: Date,
  ): { verdict: SandboxVerdict; queriesInProcess: number; facts: DocumentFacts; inSet?: boolean } {
    let facts: DocumentFacts = NO_FACTS;
    const refuse = (code: number, value: string, sequenceUsed = false) => ({
      verdict: { code: 2 as const, status: STATUS[2], sequenceUsed, messages: [{ code, value }] },
      queriesInProcess: 0,
      facts,
    });
    const parsed = parseXml(xml);
    if (!parsed.ok) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${parsed.reason}`);
    const type = encf.slice(1, 3);
    const docKind = kind === 'rfce' ? 'rfce' : (`ecf${type}` as DocumentKind);
    if (!(DOCUMENT_KINDS as readonly string[]).includes(docKind)) {
      return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): tipo de e-CF ${type} desconocido`);
    }
    const schema = validateAgainstSchema(docKind, xml);
    if (!schema.valid) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`);
    const signature = verifySignature(xml, parsed, at);
    if (!signature.ok) return refuse(SANDBOX_CODES.signature, `La firma digital del XML no es válida: ${signature.reason}`);
    const t = textsOf(parsed.root, FACT_ELEMENTS);
    facts = {
      totalAmount: own(t.MontoTotal),
      totalItbis: own(t.TotalITBIS),
      issuedOn: own(t.FechaEmision),
      signedAt: own(t.FechaHoraFirma),
      buyerRnc: own(t.RNCComprador),
      foreignId: own(t.IdentificadorExtranjero),
      securityCode: own(kind === 'rfce' ? t.CodigoSeguridadeCF : signature.signatureValue.slice(0, 6)),
    };
    if (t.RNCEmisor !== rnc || t.eNCF !== encf) {
      return refuse(SANDBOX_CODES.nameMismatch, 'El nombre del archivo no corresponde al RNCEmisor y eNCF del documento.');
    }
    const total = Number(facts.totalAmount ?? 'NaN');
    if (kind === 'ecf' && type === '32' && total < CONSUMER_SUMMARY_LIMIT) {
      return refuse(SANDBOX_CODES.consumerSummary, 'Las facturas de consumo menores de RD$250,000.00 se reportan mediante el resumen (RFCE).');
    }
    if (kind === 'rfce' && !(total < CONSUMER_SUMMARY_LIMIT)) {
      return refuse(SANDBOX_CODES.notConsumerSummary, 'El resumen (RFCE) es solo para facturas de consumo menores de RD$250,000.00.');
    }
    // Certification: a document of an applicant's set is judged against its row, and may be sent again after a reset.
    const set = environment === 'certecf' ? certification.judge(kind, rnc, encf, xml) : null;
    if (set?.inSet && 'duplicate' in set) return { ...refuse(set.duplicate.code, set.duplicate.value, true), inSet: true };
    if (set?.inSet && set.messages.length) {
      return { verdict: { code: 2, status: STATUS[2], sequenceUsed: false, messages: set.messages }, queriesInProcess: 0, facts, inSet: true };
    }
    if (!set?.inSet) {
      if (state.used.has(usedKey(environment, rnc, encf))) {
        return refuse(SANDBOX_CODES.sequenceUsed, `El e-NCF ${encf} ya fue utilizado.`, true);
      }
      const n = Number(encf.slice(3));
      if (annulled(environment, rnc, Number(type), n, n)) {
        return refuse(SANDBOX_CODES.encfAnnulled, `El e-NCF ${encf} fue anulado.`, true);
      }
    }
    let final: FinalOutcome = { kind: 'accept' };
    let queriesInProcess = 0;
    if (outcome?.kind === 'inProcess') {
      queriesInProcess = outcome.queries;
      final = outcome.then ?? final;
    } else if (outcome && isFinal(outcome)) {
      final = outcome;
    }
    return { verdict: verdictOf(final), queriesInProcess, facts, inSet: set?.inSet ?? false };
  }

  /** Whether an accepted annulment of this environment and RNC covers any number of `type` from–to. */
  function annulled(environment: SandboxEnvironment, rnc: string | null, type: number, from: number, to: number): boolean {
    return state.annulments.some(
      (a) => a.annulled && a.environment === environment && a.rnc === rnc && a.ranges.some((r) => r.type === type && r.from <= to && from <= r.to),
    );
  }

  function recordAnnulment(environment: SandboxEnvironment, upload: { fileName: string; xml: string }, outcome: SandboxOutcome | undefined): SandboxAnnulment {
    const receivedAt = now();
    const judged = judgeAnnulment(environment, upload.xml, outcome, receivedAt);
    const annulment: SandboxAnnulment = { id: randomUUID(), environment, fileName: upload.fileName, xml: upload.xml, receivedAt, ...judged };
    state.annulments.push(annulment);
    state.stats.annulments++;
    return annulment;
  }

  /**
   * The checks the authority documents for an ANECF (NOTES §11, DT p.36–37),
   * in order: schema, signature, NoLinea sequential, each range of its
   * line's type with Desde ≤ Hasta, the counts, and numbers neither used by
   * an e-CF or RFCE received nor annulled before; then the scripted verdict.
   */
  function judgeAnnulment(
    environment: SandboxEnvironment,
    xml: string,
    outcome: SandboxOutcome | undefined,
    at: Date,
  ): Pick<SandboxAnnulment, 'rnc' | 'annulled' | 'code' | 'messages' | 'ranges'> {
    let rnc: string | null = null;
    let ranges: { type: number; from: number; to: number }[] = [];
    const refuse = (code: number, message: string) => ({ rnc, annulled: false, code: String(code), messages: [message], ranges });
    const parsed = parseXml(xml);
    if (!parsed.ok) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${parsed.reason}`);
    if (parsed.root.localName !== 'ANECF') return refuse(SANDBOX_CODES.schema, 'El XML no cumple con el esquema (XSD): la raíz no es ANECF');
    const schema = validateAgainstSchema('anecf', xml);
    if (!schema.valid) return refuse(SANDBOX_CODES.schema, `El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`);
    const signature = verifySignature(xml, parsed, at);
    if (!signature.ok) return refuse(SANDBOX_CODES.signature, `La firma digital del XML no es válida: ${signature.reason}`);
    rnc = textOf(parsed.root, 'RncEmisor');

    const children = (el: Element, name: string): Element[] => Array.from(el.childNodes).filter((c): c is Element => c.nodeType === 1 && (c as Element).localName === name);
    const textIn = (el: Element, name: string): string => children(el, name)[0]?.textContent?.trim() ?? '';
    const header = children(parsed.root, 'Encabezado')[0]!;
    const lines = children(children(parsed.root, 'DetalleAnulacion')[0]!, 'Anulacion');
    let total = 0;
    const read: { type: number; from: number; to: number }[] = [];
    for (const [i, line] of lines.entries()) {
      if (textIn(line, 'NoLinea') !== String(i + 1)) return refuse(SANDBOX_CODES.annulmentLineOrder, 'El campo NoLinea no es válido, no cumple orden secuencial.');
      const type = Number(textIn(line, 'TipoeCF'));
      let count = 0;
      for (const seq of children(children(line, 'TablaRangoSecuenciasAnuladaseNCF')[0]!, 'Secuencias')) {
        const desde = /^E(\d{2})(\d{10})$/.exec(textIn(seq, 'SecuenciaeNCFDesde'));
        const hasta = /^E(\d{2})(\d{10})$/.exec(textIn(seq, 'SecuenciaeNCFHasta'));
        if (!desde || !hasta || Number(desde[1]) !== type || Number(hasta[1]) !== type) {
          return refuse(SANDBOX_CODES.annulmentType, 'El tipo de comprobante no es válido.');
        }
        const from = Number(desde[2]);
        const to = Number(hasta[2]);
        if (from < 1 || from > to) return refuse(SANDBOX_CODES.annulmentReversed, 'La secuencia desde no puede ser mayor que la secuencia hasta.');
        read.push({ type, from, to });
        count += to - from + 1;
      }
      if (Number(textIn(line, 'CantidadeNCFAnulados')) !== count) {
        return refuse(SANDBOX_CODES.annulmentCount, `La cantidad de e-NCF anulados de la línea ${i + 1} no coincide con sus secuencias.`);
      }
      total += count;
    }
    if (Number(textIn(header, 'CantidadeNCFAnulados')) !== total) {
      return refuse(SANDBOX_CODES.annulmentCount, 'La cantidad de e-NCF anulados del encabezado no coincide con el detalle.');
    }
    ranges = read;
    const used = [...state.used].some((k) => {
      const [env, who, encf] = k.split('|');
      if (env !== environment || who !== rnc) return false;
      const type = Number(encf!.slice(1, 3));
      const n = Number(encf!.slice(3));
      return read.some((r) => r.type === type && r.from <= n && n <= r.to);
    });
    const annulledBefore = read.some((r) => annulled(environment, rnc, r.type, r.from, r.to));
    if (used || annulledBefore) return refuse(SANDBOX_CODES.annulmentUsed, 'Las secuencias que está intentando anular han sido utilizadas.');
    if (outcome?.kind === 'reject') {
      const [m, ...more] = outcome.messages ?? [{ code: SANDBOX_CODES.rejected, value: 'No fue posible anular las siguientes secuencias (resultado programado en el sandbox).' }];
      return { rnc, annulled: false, code: String(m!.code), messages: [m!.value, ...more.map((x) => x.value)], ranges };
    }
    if (outcome?.kind === 'transientReject') {
      return refuse(outcome.code ?? SANDBOX_CODES.transient, outcome.message ?? 'No fue posible anular las siguientes secuencias. Favor intentar nuevamente.');
    }
    return { rnc, annulled: true, code: ANNULLED, messages: ['Las secuencias fueron anuladas correctamente.'], ranges };
  }

  return { app, control };
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

// ---- helpers

function schemaErrors(schema: Parameters<typeof Value.Errors>[0], value: unknown): string[] {
  return [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
}

/** `change` applied to `current`, after checking it; an error names the first wrong fields. */
function checkedLoad(current: SandboxLoad, change: SandboxLoadInput, name: string): SandboxLoad {
  if (!Value.Check(LoadSchema, change)) {
    throw new Error(`invalid sandbox ${name}: ${schemaErrors(LoadSchema, change).slice(0, 3).join('; ')}`);
  }
  return applyLoad(current, change);
}

const NO_FACTS: DocumentFacts = {
  totalAmount: null,
  totalItbis: null,
  issuedOn: null,
  signedAt: null,
  buyerRnc: null,
  foreignId: null,
  securityCode: null,
};

/** What judge reads of an e-CF or RFCE, in one walk. */
const FACT_ELEMENTS = ['MontoTotal', 'TotalITBIS', 'FechaEmision', 'FechaHoraFirma', 'RNCComprador', 'IdentificadorExtranjero', 'CodigoSeguridadeCF', 'RNCEmisor', 'eNCF'] as const;

/**
 * A copy of `text` that holds nothing else: the parser's strings are slices
 * of the whole document, which a kept fact would otherwise keep alive.
 */
const own = (text: string | null): string | null => (text === null ? null : Buffer.from(text, 'utf8').toString('utf8'));

const usedKey = (environment: string, rnc: string, encf: string) => `${environment}|${rnc}|${encf}`;

/** anularrango's codigo for "Satisfactorio" (NOTES §4.8). */
const ANNULLED = '15';

const isFinal = (o: SandboxOutcome): o is FinalOutcome =>
  o.kind === 'accept' || o.kind === 'reject' || o.kind === 'conditional' || o.kind === 'transientReject';

/** One object for every plain acceptance: a drain of many documents keeps one verdict each. */
const ACCEPTED: SandboxVerdict = Object.freeze({ code: 1, status: STATUS[1], sequenceUsed: true, messages: Object.freeze([]) as readonly SandboxMessage[] });

function verdictOf(outcome: FinalOutcome): SandboxVerdict {
  switch (outcome.kind) {
    case 'accept':
      return ACCEPTED;
    case 'conditional':
      return {
        code: 4,
        status: STATUS[4],
        sequenceUsed: true,
        messages: outcome.messages ?? [{ code: SANDBOX_CODES.conditional, value: 'Aceptado con observaciones (resultado programado en el sandbox).' }],
      };
    case 'reject':
      return {
        code: 2,
        status: STATUS[2],
        sequenceUsed: outcome.sequenceUsed ?? true,
        messages: outcome.messages ?? [{ code: SANDBOX_CODES.rejected, value: 'Rechazado (resultado programado en el sandbox).' }],
      };
    case 'transientReject':
      return {
        code: 2,
        status: STATUS[2],
        sequenceUsed: false,
        messages: [{ code: outcome.code ?? SANDBOX_CODES.transient, value: outcome.message ?? 'Servicio no disponible temporalmente. Favor intentar nuevamente.' }],
      };
  }
}

const wireMessage = (m: SandboxMessage) => ({ valor: m.value, codigo: m.code });

/** Ends the exchange without an answer: the client sees the connection close. */
function drop(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.destroy();
  return reply;
}

async function readUpload(request: FastifyRequest): Promise<{ fileName: string; xml: string } | { error: string }> {
  // The authority's answer to an upload without a length (chunked), NOTES §3.1.
  if (!request.headers['content-length']) return { error: 'Multipart cannot be empty' };
  if (!request.isMultipart()) return { error: 'Multipart cannot be empty' };
  try {
    const part = await request.file();
    if (!part) return { error: 'Multipart cannot be empty' };
    if (part.fieldname.toLowerCase() !== 'xml') return { error: `The form field must be named xml, not ${part.fieldname}` };
    const buffer = await part.toBuffer();
    let xml = buffer.toString('utf8');
    if (xml.charCodeAt(0) === 0xfeff) xml = xml.slice(1);
    return { fileName: part.filename ?? '', xml };
  } catch (e) {
    return { error: `The upload cannot be read: ${(e as Error).message}` };
  }
}

function lowerKeys(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
      const value = Array.isArray(v) ? v[0] : v;
      out[k.toLowerCase()] = typeof value === 'string' ? value.trim() : undefined;
    }
  }
  return out;
}

const dominican = (d: Date): Date => new Date(d.getTime() - 4 * 3_600_000);
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** As .NET writes a DateTimeOffset: 2026-03-10T10:00:00.1234567-04:00 (Dominican time). */
function dotnetDateTime(d: Date): string {
  const l = dominican(d);
  const ticks = pad(l.getUTCMilliseconds(), 3) + pad(Math.floor(Math.random() * 10_000), 4);
  return `${l.getUTCFullYear()}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())}T${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())}.${ticks}-04:00`;
}

/** yyyy-MM-ddTHH:mm:ssZ, validarsemilla's format. */
const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** 8/15/2023 6:06:57 AM, as the authority was seen writing fechaRecepcion (NOTES §4.2), in Dominican time. */
function usStyle(d: Date): string {
  const l = dominican(d);
  const h = l.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${l.getUTCMonth() + 1}/${l.getUTCDate()}/${l.getUTCFullYear()} ${h12}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

const SERVICE_UNAVAILABLE = '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>HTTP Error 503. The service is unavailable.</p></body></html>';
const GATEWAY_TIMEOUT = '<!DOCTYPE html><html><head><title>Gateway Timeout</title></head><body><h1>Gateway Timeout</h1></body></html>';
