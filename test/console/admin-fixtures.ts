import type { Engine } from '../../src/engine/engine-types.js';
import type { ManualClock } from '../../src/engine/clock.js';
import { createWebhook, listDeliveries } from '../../src/engine/webhooks/index.js';
import { deliverDueWebhooks } from '../../src/engine/webhooks/delivery.js';
import { DELIVERY_LADDER_MS } from '../../src/engine/webhooks/rules.js';
import { allowLoopback, emitEvent, startReceiver } from '../engine/webhooks/harness.js';

/**
 * A webhook endpoint on a real local receiver that refuses everything (500),
 * and one delivery to it that ran out of attempts (dead), the injected clock
 * moved along the retry ladder as the job would wait.
 */
export async function deadDelivery(engine: Engine & { clock: ManualClock }, tenantId: string) {
  await allowLoopback(engine);
  const receiver = await startReceiver(() => 500);
  const { endpoint } = await createWebhook(engine, tenantId, { url: receiver.url, events: ['ecf.*'] });
  await emitEvent(engine, tenantId, 'ecf.rejected');
  await deliverDueWebhooks(engine, { pollMs: 5 });
  for (const wait of DELIVERY_LADDER_MS) {
    engine.clock.advance(wait);
    await deliverDueWebhooks(engine, { pollMs: 5 });
  }
  const delivery = (await listDeliveries(engine, tenantId, endpoint.id)).items[0]!;
  if (delivery.status !== 'dead') throw new Error(`the delivery is ${delivery.status}, not dead`);
  return { endpoint, delivery, receiver };
}
