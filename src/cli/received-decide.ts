import { EcfCommand } from './base.js';
import { record } from './render.js';
import { resolveTenant } from './tenant-flag.js';
import { findReceivedEcf, type ReceivedEcfView } from '../engine/reception/index.js';
import { decideCommercialApproval } from '../engine/reception/receiving.js';

/** approve and reject: the tenant's commercial decision, the same engine operation as the API's. */
export abstract class DecideCommand extends EcfCommand {
  protected async decide(flags: { tenant?: string | undefined; 'data-dir'?: string | undefined }, id: string, decision: 'accepted' | 'rejected', rejectionReason: string | null): Promise<ReceivedEcfView> {
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const found = await findReceivedEcf(engine, tenant.id, id);
    const view = await decideCommercialApproval(engine, tenant.id, found.id, { decision, rejectionReason });
    this.log(`${view.encf} ${decision}; the ACECF is queued for the issuer and the tax authority (the server's jobs deliver it).`);
    this.log(record({ id: view.id, encf: view.encf, issuer: view.issuerRnc, decision: view.commercialApproval?.decision, rejectionReason: view.commercialApproval?.rejectionReason }));
    return view;
  }
}
