import { describe, expect, it } from 'vitest';
import { cliFor } from '../../cli-runner.js';
import { openEngine } from '../../../src/engine/engine.js';
import { receiveEcf } from '../../../src/engine/reception/receive.js';
import { buildSandbox } from '../../../src/sandbox/index.js';
import { seedIssuer, testDataDir } from '../../helpers.js';

describe('ecf received list | show | approve | reject', () => {
  it('lists the inbox, shows one, and records a decision each way (exit 4 for a second one)', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    const { control } = buildSandbox();
    const made = [control.taxpayer.makeEcf({ buyerRnc: tenant.rnc }), control.taxpayer.makeEcf({ buyerRnc: tenant.rnc })];
    for (const m of made) await receiveEcf(engine, tenant.id, { xml: Buffer.from(m.xml), fileName: `${control.taxpayer.rnc}${m.encf}.xml` });
    await engine.close();
    const { json, ecf } = cliFor(dataDir);

    const list = await json(['received', 'list', '--approval', 'pending']);
    expect(list.totalCount).toBe(2);
    const shown = await json(['received', 'show', made[0]!.encf]);
    expect(shown).toMatchObject({ encf: made[0]!.encf, status: 'received', approvalState: 'pending', commercialApproval: null });
    expect(shown.arecf).toContain('<Estado>0</Estado>');

    const approved = await json(['received', 'approve', made[0]!.encf]);
    expect(approved.commercialApproval).toMatchObject({ decision: 'accepted', deliveries: { issuer: { status: 'pending' }, taxauth: { status: 'pending' } } });
    const rejected = await json(['received', 'reject', made[1]!.encf, '--reason', 'Mercancía no recibida']);
    expect(rejected.commercialApproval).toMatchObject({ decision: 'rejected', rejectionReason: 'Mercancía no recibida' });
    const again = await json(['received', 'reject', made[0]!.encf, '--reason', 'otra vez'], undefined, 4);
    expect(again.error.code).toBe('ReceivedEcf.AlreadyDecided');
    expect((await json(['received', 'list', '--approval', 'pending'])).totalCount).toBe(0);
    const human = await ecf(['received', 'list']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(made[1]!.encf);
  }, 120_000);
});
