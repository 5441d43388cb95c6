import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { EngineError, ValidationError } from '../../../src/engine/errors.js';
import { SETTINGS, settingDefinition } from '../../../src/engine/settings/catalogue.js';
import {
  getSetting,
  listSettings,
  parseSettingText,
  setSetting,
  settingView,
  unsetSetting,
} from '../../../src/engine/settings/settings.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import { nextRnc, testEngine } from '../../helpers.js';

async function tenant(engine: Engine) {
  return createTenant(engine, { rnc: nextRnc(), legalName: 'Farmacia Los Mina SRL' });
}

async function thrown<E extends Error>(work: () => Promise<unknown>, type: new (...a: never[]) => E): Promise<E> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as E;
  }
  throw new Error('expected an error, nothing was thrown');
}

/** The sentence the catalogue gives for a setting's rule (its own, or its non-null variant's). */
function catalogueMessage(key: string): string {
  const schema = settingDefinition(key)!.schema as TSchema & { errorMessage?: string; anyOf?: TSchema[] };
  const message = schema.errorMessage ?? (schema.anyOf?.[0] as { errorMessage?: string } | undefined)?.errorMessage;
  expect(typeof message, `${key} has an errorMessage`).toBe('string');
  return message!;
}

async function storedRows(engine: Engine) {
  return engine.db.selectFrom('settings').selectAll().orderBy('scope').orderBy('key').execute();
}

describe('settings', () => {
  it('answers every setting with its default when nothing is stored', async () => {
    const engine = await testEngine();
    const t = await tenant(engine);
    expect(SETTINGS.length).toBeGreaterThan(0);
    for (const def of SETTINGS) {
      for (const tenantId of [undefined, null, t.id]) {
        const view = await settingView(engine, def.key, tenantId);
        expect(view, def.key).toEqual({
          key: def.key,
          value: def.default,
          source: 'default',
          scope: def.scope,
          default: def.default,
          description: def.description,
        });
        expect(await getSetting(engine, def.key, tenantId)).toEqual(def.default);
      }
    }
    const listed = await listSettings(engine, t.id);
    expect(listed.map((v) => v.key)).toEqual(SETTINGS.map((s) => s.key));
    expect(listed.every((v) => v.source === 'default')).toBe(true);
    expect(await getSetting(engine, 'sequences.mode')).toBe('managed');
    expect(await getSetting(engine, 'sequences.low_stock_fraction')).toBe(0.2);
    expect(await getSetting(engine, 'retry.max')).toBe(3);
    expect(await getSetting(engine, 'webhooks.development_mode')).toBe(false);
  });

  it('layers the platform value under a tenant override, per tenant', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    const b = await tenant(engine);

    const platform = await setSetting(engine, 'retry.max', 5);
    expect(platform).toMatchObject({ key: 'retry.max', value: 5, source: 'platform', default: 3 });
    for (const tenantId of [undefined, a.id, b.id]) {
      expect(await settingView(engine, 'retry.max', tenantId)).toMatchObject({ value: 5, source: 'platform' });
    }

    const own = await setSetting(engine, 'retry.max', 7, a.id);
    expect(own).toMatchObject({ value: 7, source: 'tenant' });
    expect(await settingView(engine, 'retry.max', a.id)).toMatchObject({ value: 7, source: 'tenant' });
    expect(await settingView(engine, 'retry.max', b.id)).toMatchObject({ value: 5, source: 'platform' });
    expect(await settingView(engine, 'retry.max')).toMatchObject({ value: 5, source: 'platform' });
    // A tenant override alone (no platform value) also applies to that tenant only.
    await setSetting(engine, 'sequences.mode', 'external', b.id);
    expect(await getSetting(engine, 'sequences.mode', b.id)).toBe('external');
    expect(await settingView(engine, 'sequences.mode', a.id)).toMatchObject({ value: 'managed', source: 'default' });

    // Overwriting keeps one row per scope and key.
    await setSetting(engine, 'retry.max', 8, a.id);
    expect(await getSetting(engine, 'retry.max', a.id)).toBe(8);
    expect(await storedRows(engine)).toEqual([
      { scope: 'platform', key: 'retry.max', value: '5', updated_at: '2026-03-10T14:00:00.000Z' },
      { scope: a.id, key: 'retry.max', value: '8', updated_at: '2026-03-10T14:00:00.000Z' },
      { scope: b.id, key: 'sequences.mode', value: '"external"', updated_at: '2026-03-10T14:00:00.000Z' },
    ].sort((x, y) => (x.scope < y.scope ? -1 : x.scope > y.scope ? 1 : 0)));

    // A nullable setting can be overridden with null, which is stored, not taken as "unset".
    await setSetting(engine, 'alerts.business_hours', '08:00-18:00');
    expect(await getSetting(engine, 'alerts.business_hours', a.id)).toBe('08:00-18:00');
    await setSetting(engine, 'alerts.business_hours', null, a.id);
    expect(await settingView(engine, 'alerts.business_hours', a.id)).toMatchObject({ value: null, source: 'tenant' });
  });

  it('unsets an override so the platform value or the default applies again', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    await setSetting(engine, 'sequences.low_stock_fraction', 0.5);
    await setSetting(engine, 'sequences.low_stock_fraction', 0.1, a.id);

    expect(await unsetSetting(engine, 'sequences.low_stock_fraction', a.id)).toMatchObject({ value: 0.5, source: 'platform' });
    expect(await settingView(engine, 'sequences.low_stock_fraction', a.id)).toMatchObject({ value: 0.5, source: 'platform' });
    expect(await unsetSetting(engine, 'sequences.low_stock_fraction')).toMatchObject({ value: 0.2, source: 'default' });
    expect(await settingView(engine, 'sequences.low_stock_fraction', a.id)).toMatchObject({ value: 0.2, source: 'default' });
    expect(await storedRows(engine)).toEqual([]);
    // Unsetting what is not set is harmless.
    expect(await unsetSetting(engine, 'sequences.low_stock_fraction', a.id)).toMatchObject({ source: 'default' });
  });

  it('rejects values of the wrong type with the catalogue message on path value, storing nothing', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    await setSetting(engine, 'retry.max', 4);
    await setSetting(engine, 'sequences.mode', 'external', a.id);
    const before = await storedRows(engine);

    const cases: [key: string, value: unknown, code: string][] = [
      ['sequences.mode', 'sometimes', 'Union'],
      ['sequences.low_stock_fraction', 0, 'NumberExclusiveMinimum'],
      ['sequences.low_stock_fraction', 1.5, 'NumberMaximum'],
      ['sequences.low_stock_fraction', '0.5', 'Number'],
      ['retry.max', 2.5, 'Integer'],
      ['retry.max', 21, 'IntegerMaximum'],
      ['retry.max', -1, 'IntegerMinimum'],
      ['alerts.business_hours', '8-18', 'StringPattern'],
      ['alerts.business_hours', '24:00-18:00', 'StringPattern'],
      ['representation.default_layout', 'a4', 'Union'],
      ['webhooks.development_mode', 'yes', 'Boolean'],
    ];
    for (const [key, value, code] of cases) {
      for (const tenantId of key === 'webhooks.development_mode' ? [undefined] : [undefined, a.id]) {
        const err = await thrown(() => setSetting(engine, key, value, tenantId), ValidationError);
        expect(err.code).toBe('Validation.Failed');
        expect(err.kind).toBe('validation');
        expect(err.message).toContain(key);
        expect(err.errors, `${key}=${JSON.stringify(value)}`).toEqual([
          { path: 'value', code, message: catalogueMessage(key) },
        ]);
      }
    }
    // A nullable number without its own sentence still names path value.
    const nullable = await thrown(() => setSetting(engine, 'alerts.no_emission_hours', 0), ValidationError);
    expect(nullable.errors.map((e) => [e.path, e.code])).toEqual([['value', 'NumberExclusiveMinimum']]);

    expect(await storedRows(engine)).toEqual(before);
    expect(await getSetting(engine, 'retry.max', a.id)).toBe(4);
    expect(await getSetting(engine, 'sequences.mode', a.id)).toBe('external');
  });

  it('accepts the boundaries of each rule', async () => {
    const engine = await testEngine();
    for (const [key, value] of [
      ['sequences.low_stock_fraction', 1],
      ['sequences.low_stock_fraction', 0.0001],
      ['retry.max', 0],
      ['retry.max', 20],
      ['alerts.business_hours', '00:00-23:59'],
      ['alerts.business_hours', null],
      ['representation.default_layout', 'pos'],
      ['representation.default_layout', 'pos58'],
      ['webhooks.development_mode', true],
    ] as const) {
      expect(await setSetting(engine, key, value), key).toMatchObject({ value, source: 'platform' });
    }
  });

  it('refuses a platform-only setting per tenant', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    const err = await thrown(() => setSetting(engine, 'webhooks.development_mode', true, a.id), EngineError);
    expect(err.code).toBe('Settings.PlatformOnly');
    expect(err.kind).toBe('validation');
    expect(await storedRows(engine)).toEqual([]);
    // The platform value is what every tenant sees.
    await setSetting(engine, 'webhooks.development_mode', true);
    expect(await settingView(engine, 'webhooks.development_mode', a.id)).toMatchObject({ value: true, source: 'platform' });
  });

  it('refuses unknown keys, naming the known ones', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    const attempts: (() => Promise<unknown>)[] = [
      () => setSetting(engine, 'retry.maximum', 3),
      () => setSetting(engine, 'retry.maximum', 3, a.id),
      () => unsetSetting(engine, 'retry.maximum'),
      () => settingView(engine, 'retry.maximum'),
    ];
    for (const attempt of attempts) {
      const err = await thrown(attempt, ValidationError);
      expect(err.errors).toHaveLength(1);
      expect(err.errors[0]).toMatchObject({ path: 'key', code: 'UnknownSetting' });
      for (const s of SETTINGS) expect(err.errors[0]!.message).toContain(s.key);
      expect(err.message).toContain('retry.maximum');
    }
    expect(await storedRows(engine)).toEqual([]);
  });

  it('refuses unknown tenants', async () => {
    const engine = await testEngine();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-tenant']) {
      for (const attempt of [
        () => setSetting(engine, 'retry.max', 3, id),
        () => unsetSetting(engine, 'retry.max', id),
        () => listSettings(engine, id),
      ]) {
        const err = await thrown(attempt, EngineError);
        expect(err.code).toBe('Tenant.NotFound');
        expect(err.kind).toBe('not_found');
      }
    }
    expect(await storedRows(engine)).toEqual([]);
  });

  it('parses values typed on a command line', () => {
    expect(parseSettingText('0.2')).toBe(0.2);
    expect(parseSettingText('3')).toBe(3);
    expect(parseSettingText('managed')).toBe('managed');
    expect(parseSettingText('08:00-18:00')).toBe('08:00-18:00');
    expect(parseSettingText('null')).toBeNull();
    expect(parseSettingText('true')).toBe(true);
    expect(parseSettingText('false')).toBe(false);
    expect(parseSettingText('"x"')).toBe('x');
  });
});
