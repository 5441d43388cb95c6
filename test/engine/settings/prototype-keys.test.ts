import { describe, expect, it } from 'vitest';
import { EngineError, ValidationError } from '../../../src/engine/errors.js';
import { setSetting, settingView, unsetSetting } from '../../../src/engine/settings/settings.js';
import { createOrganization } from '../../../src/engine/tenants/organizations.js';
import { testEngine } from '../../helpers.js';

/** Names every plain object inherits: a table looked up by a name the user typed must not find them. */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf'];

async function refusal(work: () => Promise<unknown>): Promise<EngineError> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    return e as EngineError;
  }
  throw new Error('expected a refusal, nothing was thrown');
}

describe('tables looked up by a name the user gives', () => {
  it('do not know setting keys named like Object’s properties', async () => {
    const engine = await testEngine();
    for (const key of PROTOTYPE_NAMES) {
      for (const work of [() => settingView(engine, key), () => setSetting(engine, key, 1), () => unsetSetting(engine, key)]) {
        const e = await refusal(work);
        expect(e, key).toBeInstanceOf(ValidationError);
        expect((e as ValidationError).errors[0]).toMatchObject({ path: 'key', code: 'UnknownSetting' });
      }
    }
    expect(await engine.db.selectFrom('settings').selectAll().execute()).toEqual([]);
  });

  it('do not know plans named like Object’s properties', async () => {
    const engine = await testEngine();
    for (const plan of PROTOTYPE_NAMES) {
      const e = await refusal(() => createOrganization(engine, { name: 'Contadores Unidos', plan, owner: { name: 'Ana Pérez' } }));
      expect(e.code, plan).toBe('Organization.UnknownPlan');
    }
    expect(await engine.db.selectFrom('organizations').selectAll().execute()).toEqual([]);
  });
});
