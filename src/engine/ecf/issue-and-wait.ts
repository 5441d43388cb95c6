import type { Engine } from '../engine-types.js';
import { waitForVerdict } from '../submission/wait.js';
import { issueEcf, type IssueRequest } from './issue.js';
import type { EcfView } from './views.js';

export interface IssuedEcf {
  /** The e-CF as issued, or with the authority's verdict when the tenant waits for it and it came in time. */
  readonly ecf: EcfView;
  /** false when the key or the internalNumber had already issued this e-CF. */
  readonly created: boolean;
}

/**
 * Issues an e-CF and honours the tenant's `issuing.wait_for_verdict_seconds`:
 * every door that issues (POST /api/v1/ecf, `ecf issue`, the folder drop)
 * calls this, so a tenant that waits for the verdict gets it whichever way it
 * issues. Only an e-CF issued now waits; a replay answers at once with what
 * is stored.
 */
export async function issueAndWait(engine: Engine, tenantId: string, request: IssueRequest): Promise<IssuedEcf> {
  const result = await issueEcf(engine, tenantId, request);
  const wait = result.waitForVerdictSeconds;
  const ecf = wait > 0 ? await waitForVerdict(engine, tenantId, result.ecf.id, wait) : result.ecf;
  return { ecf, created: result.created };
}
