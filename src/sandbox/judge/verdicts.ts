import { SANDBOX_CODES, type FinalOutcome, type SandboxMessage, type SandboxOutcome } from '../outcomes.js';
import type { SandboxVerdict } from '../types.js';

/** The authority's names for its result codes (NOTES §4.2). */
export const STATUS: Record<0 | 1 | 2 | 3 | 4, string> = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
};

export const isFinal = (o: SandboxOutcome): o is FinalOutcome =>
  o.kind === 'accept' || o.kind === 'reject' || o.kind === 'conditional' || o.kind === 'transientReject';

/** One object for every plain acceptance: a drain of many documents keeps one verdict each. */
const ACCEPTED: SandboxVerdict = Object.freeze({ code: 1, status: STATUS[1], sequenceUsed: true, messages: Object.freeze([]) as readonly SandboxMessage[] });

/** The verdict a scripted final outcome gives a document that passed the checks. */
export function verdictOf(outcome: FinalOutcome): SandboxVerdict {
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
