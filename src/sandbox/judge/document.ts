import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import { DOCUMENT_KINDS, type DocumentKind } from '../../engine/xml/schema-trees.generated.js';
import type { CertificationMode } from '../certification/mode.js';
import { SANDBOX_CODES, type FinalOutcome, type SandboxOutcome } from '../outcomes.js';
import { isAnnulled, usedKey, type State } from '../state.js';
import type { DocumentFacts, SandboxEnvironment, SandboxVerdict } from '../types.js';
import { parseXml, textsOf, verifySignature } from '../verify.js';
import { STATUS, isFinal, verdictOf } from './verdicts.js';

/**
 * The verdict on an e-CF or RFCE, checked in the authority's order: well
 * formed, its type's schema, the signature, the file name against the
 * document, the consumo threshold, then (certecf) the applicant's set, the
 * e-NCF not used nor annulled, and last the scripted outcome.
 */

const CONSUMER_SUMMARY_LIMIT = 250_000;

/** What the judge reads from the sandbox: the used and annulled numbers, and the certification sets. */
export interface DocumentJudgeDeps {
  readonly state: State;
  readonly certification: CertificationMode;
}

export interface DocumentJudgement {
  verdict: SandboxVerdict;
  queriesInProcess: number;
  facts: DocumentFacts;
  inSet?: boolean;
}

export function judgeDocument(
  deps: DocumentJudgeDeps,
  kind: 'ecf' | 'rfce',
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
  xml: string,
  outcome: SandboxOutcome | undefined,
  at: Date,
): DocumentJudgement {
  const { state, certification } = deps;
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
    if (isAnnulled(state, environment, rnc, Number(type), n, n)) {
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
