import { randomUUID } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { judgeDocument } from '../judge/document.js';
import { SANDBOX_CODES, type SandboxOutcome } from '../outcomes.js';
import { keepSubmission, type MutableSubmission } from '../state.js';
import type { SandboxEnvironment } from '../types.js';

/**
 * What the two receptions of documents share (e-CF in recepcion, RFCE in
 * recepcionfc): the file-name rule and the recording of what arrives.
 */

/** `{RNCEmisor}{eNCF}.xml` (NOTES §3.1). */
export const FILE_NAME = /^(\d{9}|\d{11})(E\d{12})\.xml$/i;

/** Records a received document with the verdict it gets: the checks first, then the scripted outcome. */
export function recordDocument(
  sandbox: SandboxContext,
  kind: 'ecf' | 'rfce',
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
  upload: { fileName: string; xml: string },
  outcome: SandboxOutcome | undefined,
): MutableSubmission {
  const receivedAt = sandbox.now();
  const judged = judgeDocument(sandbox, kind, environment, rnc, encf, upload.xml, outcome, receivedAt);
  if (environment === 'certecf') {
    // The portal counts a transient refusal apart: the applicant may send the document again.
    const transient = outcome?.kind === 'transientReject' && judged.verdict.messages[0]?.code === (outcome.code ?? SANDBOX_CODES.transient);
    sandbox.certification.settle(
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
  keepSubmission(sandbox.state, submission, sandbox.keepXml);
  return submission;
}
