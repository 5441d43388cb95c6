import { describe, expect, it } from 'vitest';
import { receivedEcfContent } from '../../../src/engine/reception/receiving.js';
import { listReceivedEcf } from '../../../src/engine/reception/index.js';
import { seedIssuer } from '../../helpers.js';
import { receptionHarness } from './harness.js';

describe('receivedEcfContent', () => {
  it('reads the lines and totals of a received e-CF from its bytes; another tenant’s id is not found', async () => {
    const h = await receptionHarness();
    await h.sendFresh();
    const received = (await listReceivedEcf(h.engine, h.tenant.id, {})).items[0]!;
    const content = await receivedEcfContent(h.engine, h.tenant.id, received.id);
    expect(content.lines.map((l) => [l.number, l.name, l.quantity, l.unitPrice, l.amount])).toEqual([
      [1, 'Papel bond (resma)', '12.00', '275.00', '3300.00'],
      [2, 'Tóner negro', '2.00', '3450.00', '6900.00'],
    ]);
    expect(content.totals).toEqual({ montoGravadoTotal: '10200.00', montoExento: null, totalItbis: '1836.00', montoTotal: received.montoTotal });

    const other = await seedIssuer(h.engine);
    await expect(receivedEcfContent(h.engine, other.tenant.id, received.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(receivedEcfContent(h.engine, h.tenant.id, 'not-an-id')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
