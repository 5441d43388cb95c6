import { afterEach } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startCertification } from '../../../src/engine/certification/state.js';
import { newId } from '../../../src/engine/ids.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import type { ManualClock } from '../../../src/engine/clock.js';
import type { Pace } from '../../../src/engine/submission/wait.js';
import { seedIssuer, testEngine } from '../../helpers.js';

const running: RunningSandbox[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

/** The Paso 2 e-NCFs a workbook used (§2.5: not contiguous), stored as the import would. */
export const PASO2_ENCFS = ['E310000000002', 'E310000000009', 'E320000000006', 'E320000000021', 'E330000000003', 'E340000000004', 'E410000000007', 'E430000000011', 'E440000000005', 'E450000000008', 'E460000000010', 'E470000000012'];

async function seedPaso2Cases(engine: Engine, tenantId: string): Promise<void> {
  const now = engine.clock.now().toISOString();
  let row = 2;
  for (const encf of PASO2_ENCFS) {
    await engine.db
      .insertInto('certification_cases')
      .values({
        id: newId(),
        tenant_id: tenantId,
        paso: 2,
        generation: 1,
        sheet: 'ECF',
        row_number: row++,
        case_id: encf,
        kind: `ecf${encf.slice(1, 3)}`,
        encf,
        modifies_encf: null,
        cells: JSON.stringify({ ENCF: encf, TipoeCF: encf.slice(1, 3), FechaVencimientoSecuencia: '31-12-2028' }),
        state: 'accepted',
        xml: null,
        security_code: null,
        track_id: null,
        messages: null,
        sent_at: null,
        verdict_at: null,
        updated_at: now,
      })
      .execute();
  }
}

/**
 * A tenant ready to issue, whose `cert` environment is the built-in sandbox
 * over loopback, with a started certification and a Paso 2 workbook's cases.
 */
export async function certificationHarness(options: { paso2Cases?: boolean } = {}) {
  const engine = await testEngine();
  const sandbox = await startSandbox({ clock: engine.clock });
  running.push(sandbox);
  await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
  await setSetting(engine, 'taxauth.fc_url.cert', `${sandbox.url}/certecf`);
  await setSetting(engine, 'taxauth.timeout_ms', 2000);
  const seeded = await seedIssuer(engine);
  await startCertification(engine, seeded.tenant.id);
  if (options.paso2Cases !== false) await seedPaso2Cases(engine, seeded.tenant.id);
  return { engine, sandbox, pace: clockPace(engine.clock), ...seeded };
}

/**
 * Waiting for verdicts on the engine's ManualClock: a pause moves it to the instant the pause
 * ends (unless another already moved it past), so concurrent waits move it together, as real
 * time would, and no real time passes. `paused` counts the pauses.
 */
export function clockPace(clock: ManualClock): Pace & { paused: number } {
  const pace = {
    paused: 0,
    now: () => clock.now().getTime(),
    pause: async (ms: number) => {
      pace.paused++;
      const to = clock.now().getTime() + ms;
      await new Promise((resolve) => setImmediate(resolve));
      if (clock.now().getTime() < to) clock.set(new Date(to));
    },
  };
  return pace;
}
