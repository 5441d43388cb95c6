import type { FastifyPluginAsync } from 'fastify';
import { annulmentService } from './annulment.js';
import { authenticationService } from './authentication.js';
import type { AuthorityServiceOptions } from './bearer.js';
import { commercialApprovalService } from './commercial-approval.js';
import { directoryService } from './directory.js';
import { receptionService } from './reception.js';
import { resultsService } from './results.js';
import { rfceService } from './rfce.js';

/**
 * The authority's services of one environment, one plugin per service as
 * the authority splits them (NOTES §3), registered under the environment's
 * prefix. Main-host and fc-host services share it, so a client's base URL
 * and fc URL are both `{sandbox}/{segment}`.
 */
export const authorityServices: FastifyPluginAsync<AuthorityServiceOptions> = async (app, { sandbox, environment }) => {
  // Only these two go on: the options also carry this plugin's prefix, which a child would add a second time.
  const options: AuthorityServiceOptions = { sandbox, environment };
  for (const service of [authenticationService, receptionService, rfceService, resultsService, annulmentService, commercialApprovalService, directoryService]) {
    await app.register(service, options);
  }
};
