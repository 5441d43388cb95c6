import { describe, expect, it } from 'vitest';
import { recentBuyers } from '../../../src/engine/ecf/index.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

describe('recentBuyers', () => {
  it("lists the tenant's buyers of its newest e-CF, each RNC once with its newest name, newest first, never another tenant's", async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const other = await seedIssuer(engine);
    await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
    const buyers = [
      { rnc: '131880681', name: 'Constructora Ejemplo SRL' },
      { rnc: '101010101', name: 'Ferretería Uno' },
      { rnc: '131880681', name: 'Constructora Ejemplo, S.R.L.' },
    ];
    let n = 0;
    for (const buyer of buyers) {
      engine.clock.advance(60_000);
      await issueEcf(engine, tenant.id, { idempotencyKey: `b-${++n}`, payload: invoice31({ buyer }) });
    }
    await issueEcf(engine, other.tenant.id, { idempotencyKey: 'other', payload: invoice31({ buyer: { rnc: '401506254', name: 'Otra' } }) });

    expect(await recentBuyers(engine, tenant.id)).toEqual([
      { rnc: '131880681', name: 'Constructora Ejemplo, S.R.L.' },
      { rnc: '101010101', name: 'Ferretería Uno' },
    ]);
    expect(await recentBuyers(engine, tenant.id, 1)).toEqual([{ rnc: '131880681', name: 'Constructora Ejemplo, S.R.L.' }]);
    expect(await recentBuyers(engine, other.tenant.id)).toEqual([{ rnc: '401506254', name: 'Otra' }]);
  });
});
