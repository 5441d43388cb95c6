import { Type, type Static } from '@sinclair/typebox';
import { LoadSchema } from './load.js';

/**
 * What the sandbox can be told to do with the next documents it receives,
 * in process (SandboxControl.script) or over HTTP (POST /_sandbox/script).
 *
 * Verdicts (what consultaresultado, or the RFCE answer, says):
 * - `accept`: code 1.
 * - `reject`: code 2 with the messages given; `sequenceUsed` defaults to true.
 * - `conditional`: code 4, accepted with observations.
 * - `transientReject`: code 2, sequence not used, with a message code that
 *   means "try again later" (9001 unless another is given).
 * - `inProcess`: code 3 for the next `queries` result queries, then `then`
 *   (accept by default). For an RFCE, whose verdict is immediate, just `then`.
 *
 * Transport (what happens to the HTTP exchange):
 * - `http5xx`: the reception answers 503 (or `status`); nothing is received.
 * - `timeout`: the reception holds the request for `ms` (60 s by default),
 *   longer than any client timeout; with `received: true` the document is
 *   recorded first, as when the authority got it but answered too late.
 * - `lostResponse`: the document is received and recorded, then the
 *   connection is destroyed before any answer.
 * - `unreachable`: nothing is received and the whole sandbox closes every
 *   connection on its first request until turned off (or for `forMs`).
 *
 * A document that fails the schema or the signature is rejected with
 * sequenceUsed false whatever verdict was scripted, and an e-NCF already
 * consumed is rejected with sequenceUsed true; a transport outcome happens
 * before any of that.
 *
 * An ANECF (anularrango) takes its outcome like any document, keyed by its
 * first SecuenciaeNCFDesde: `reject` and `transientReject` refuse it (HTTP
 * 400 with the messages), the other verdicts annul; the transport outcomes
 * are the same.
 */

export const MessageSchema = Type.Object({ code: Type.Integer(), value: Type.String() }, { additionalProperties: false });
export type SandboxMessage = Static<typeof MessageSchema>;

const Accept = Type.Object({ kind: Type.Literal('accept') }, { additionalProperties: false });
const Reject = Type.Object(
  { kind: Type.Literal('reject'), messages: Type.Optional(Type.Array(MessageSchema)), sequenceUsed: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const Conditional = Type.Object(
  { kind: Type.Literal('conditional'), messages: Type.Optional(Type.Array(MessageSchema)) },
  { additionalProperties: false },
);
const TransientReject = Type.Object(
  { kind: Type.Literal('transientReject'), code: Type.Optional(Type.Integer()), message: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const FinalOutcomeSchema = Type.Union([Accept, Reject, Conditional, TransientReject]);
export type FinalOutcome = Static<typeof FinalOutcomeSchema>;

export const OutcomeSchema = Type.Union([
  Accept,
  Reject,
  Conditional,
  TransientReject,
  Type.Object(
    { kind: Type.Literal('inProcess'), queries: Type.Integer({ minimum: 0, maximum: 1000 }), then: Type.Optional(FinalOutcomeSchema) },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('http5xx'), status: Type.Optional(Type.Integer({ minimum: 500, maximum: 599 })) }, { additionalProperties: false }),
  Type.Object(
    { kind: Type.Literal('timeout'), ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })), received: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('lostResponse') }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('unreachable'), forMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })) }, { additionalProperties: false }),
]);
export type SandboxOutcome = Static<typeof OutcomeSchema>;

export const ScriptSchema = Type.Object(
  {
    /** Queue for this e-NCF; without it, for the next documents whatever their e-NCF. */
    encf: Type.Optional(Type.String({ pattern: '^E\\d{12}$' })),
    outcomes: Type.Array(OutcomeSchema, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type SandboxScript = Static<typeof ScriptSchema>;

/**
 * Changes the latency and limits (load.ts), e.g.
 * `{"load": {"latency": {"all": {"delayMs": 300, "jitterMs": 50}, "rfce": {"delayMs": 100}}, "maxInFlight": 64, "overloadStatus": "429"}}`:
 * what is given replaces what is in force, `maxInFlight: null` lifts the cap.
 * The answer holds the settings now in force; `reset` keeps them.
 */
export const LoadCommandSchema = Type.Object({ load: LoadSchema }, { additionalProperties: false });

/** The body of POST /_sandbox/script: a script, one of the switches, or the load. */
export const AdminCommandSchema = Type.Union([
  ScriptSchema,
  Type.Object({ unreachable: Type.Boolean(), forMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })) }, { additionalProperties: false }),
  Type.Object({ revokeTokens: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object({ clearScripts: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object({ reset: Type.Literal(true) }, { additionalProperties: false }),
  LoadCommandSchema,
]);
export type AdminCommand = Static<typeof AdminCommandSchema>;

/**
 * Message codes the sandbox writes. Only 3243 and the texts marked so are
 * the authority's own (NOTES §13); the rest are the sandbox's, chosen so
 * tests can tell the causes apart.
 */
export const SANDBOX_CODES = {
  /** NOTES §13 [B]: the upload's file name is not {RNCEmisor}{eNCF}.xml. */
  fileName: 3243,
  schema: 1001,
  signature: 1002,
  nameMismatch: 1003,
  consumerSummary: 1004,
  sequenceUsed: 1005,
  notConsumerSummary: 1006,
  rejected: 1999,
  conditional: 4001,
  /** "Try again later": one of the engine's TRANSIENT_REJECTION_CODES. */
  transient: 9001,
  /** An e-CF or RFCE whose e-NCF was annulled. */
  encfAnnulled: 1007,
  /** ANECF: NoLinea not 1, 2, … (the text is the authority's, DT p.37). */
  annulmentLineOrder: 1101,
  /** ANECF: a range of another type than its line, or not an e-NCF. */
  annulmentType: 1102,
  /** ANECF: Desde above Hasta, or zero. */
  annulmentReversed: 1103,
  /** ANECF: CantidadeNCFAnulados does not match the ranges. */
  annulmentCount: 1104,
  /** ANECF: numbers used by a received e-CF or annulled before (the text is the authority's). */
  annulmentUsed: 1105,
} as const;
