import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { getSetting, getSettings, listSettings, setSetting, settingView, unsetSetting } from '../../../src/engine/settings/settings.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import { nextRnc, testEngine } from '../../helpers.js';
import { damaged } from '../store/damaged-column.js';

/** Writes a settings row behind the engine's back, as a hand edit of the store or a damaged page would. */
async function storeRaw(engine: Engine, scope: string, key: string, value: string): Promise<void> {
  await engine.db.insertInto('settings').values({ scope, key, value, updated_at: engine.clock.now().toISOString() }).execute();
}

describe('stored settings are read through their schema', () => {
  it('a platform value that does not fit its schema is an error naming the key, on every read path', async () => {
    const engine = await testEngine();
    const tenant = await createTenant(engine, { rnc: nextRnc(), legalName: 'Ferretería Ozama SRL' });
    await storeRaw(engine, 'platform', 'retry.max', '"three"');
    for (const read of [
      () => getSetting(engine, 'retry.max'),
      () => getSetting(engine, 'retry.max', tenant.id),
      () => getSettings(engine, ['sequences.mode', 'retry.max'], tenant.id),
      () => settingView(engine, 'retry.max'),
      () => listSettings(engine),
    ]) {
      const err = await damaged(read);
      expect(err.code).toBe('Store.ColumnDamaged');
      expect(err.kind).toBe('damaged');
      expect(err.where).toBe('settings.value of retry.max (scope platform)');
      expect(err.message).toContain('retry.max');
      expect(err.message).toContain('must be an integer from 0 to 20');
    }
    // Other settings still read, and the operator can repair it through the engine.
    expect(await getSetting(engine, 'sequences.mode')).toBe('managed');
    expect(await setSetting(engine, 'retry.max', 5)).toMatchObject({ value: 5, source: 'platform' });
    expect(await getSetting(engine, 'retry.max', tenant.id)).toBe(5);
  });

  it("a tenant's override that is not JSON, or of the wrong type, names the key and the tenant's scope", async () => {
    const engine = await testEngine();
    const tenant = await createTenant(engine, { rnc: nextRnc(), legalName: 'Ferretería Ozama SRL' });
    await storeRaw(engine, tenant.id, 'sequences.mode', 'managed');
    const notJson = await damaged(() => getSetting(engine, 'sequences.mode', tenant.id));
    expect(notJson.message).toContain(`settings.value of sequences.mode (scope ${tenant.id})`);
    expect(notJson.message).toContain('not JSON');

    await engine.db.updateTable('settings').set({ value: '"automatic"' }).where('key', '=', 'sequences.mode').execute();
    const wrong = await damaged(() => getSettings(engine, ['sequences.mode'], tenant.id));
    expect(wrong.message).toContain('must be managed or external');
    // The platform's value is untouched; removing the override repairs the tenant.
    expect(await getSetting(engine, 'sequences.mode')).toBe('managed');
    expect(await unsetSetting(engine, 'sequences.mode', tenant.id)).toMatchObject({ value: 'managed', source: 'default' });
  });

  it('types each value by its key, and refuses a type the key does not give', async () => {
    const engine = await testEngine();
    const fraction: number = await getSetting(engine, 'sequences.low_stock_fraction');
    const layout: 'letter' | 'pos' | 'pos58' = await getSetting(engine, 'representation.default_layout');
    expect([fraction, layout]).toEqual([0.2, 'letter']);
    // @ts-expect-error retry.max holds a number, not a string: the caller cannot choose another type.
    const wrong: string = await getSetting<string>(engine, 'retry.max');
    expect(wrong).toBe(3);
  });
});
