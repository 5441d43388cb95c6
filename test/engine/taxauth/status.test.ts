import { describe, expect, it } from 'vitest';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { contingencyState, noteTransportFailure, noteTransportSuccess, setContingency } from '../../../src/engine/submission/contingency.js';
import { authorityStatus, STATUS_TTL_MS } from '../../../src/engine/taxauth/authority-status.js';
import { checkConnection } from '../../../src/engine/taxauth/connection.js';
import { readStatusKey, setStatusKey, statusKeyInfo, unsetStatusKey } from '../../../src/engine/taxauth/status-key.js';
import { watchTick } from '../../../src/engine/submission/status-watch.js';
import { TokenCache } from '../../../src/engine/taxauth/token-cache.js';
import { authorityStatusChecks, authorityStatusCheck } from '../../../src/engine/health/authority-status.js';
import { SANDBOX_STATUS_API_KEY } from '../../../src/sandbox/index.js';
import { storedBytes } from '../../helpers.js';
import { world } from './fixtures.js';
import { api } from '../../api.js';

/** A world whose status host is the sandbox, with the sandbox's key set. */
async function statusWorld() {
  const w = await world();
  await setSetting(w.engine, 'taxauth.status_url', w.sandbox.url);
  await setStatusKey(w.engine, SANDBOX_STATUS_API_KEY);
  return w;
}

const MINUTE = 60_000;

describe('the status API key', () => {
  it('rests sealed in the secret store, never in the database, and is forgotten on unset', async () => {
    const w = await world();
    // The encrypted-file store, whatever keychain this machine has (npm test runs a real one).
    await setSetting(w.engine, 'secrets.store', 'file');
    expect(await statusKeyInfo(w.engine)).toEqual({ configured: false, store: null, setAt: null, hint: null });
    const info = await setStatusKey(w.engine, '  AB12CD3-EF45GH6-IJ78-KL90MN12OP  ');
    expect(info).toMatchObject({ configured: true, store: 'file', hint: '…12OP' });
    expect(await readStatusKey(w.engine)).toBe('AB12CD3-EF45GH6-IJ78-KL90MN12OP');
    expect((await storedBytes(w.engine)).includes(Buffer.from('AB12CD3-EF45GH6'))).toBe(false);
    await expect(setStatusKey(w.engine, 'has space in it')).rejects.toMatchObject({ code: 'Taxauth.StatusKeyInvalid' });
    // A store moved without its secrets: the key is recorded but gone; said at the next read, and kept for readiness.
    await w.engine.secrets.of('file').delete('taxauth/status-api-key');
    const missing = await authorityStatus(w.engine, { refresh: 'now' });
    expect(missing.snapshot!.error).toMatch(/recorded in the file secret store but is not there; set it again: ecf taxauth status-key set/);
    expect((await authorityStatusCheck.run(w.engine))[0]).toMatchObject({ status: 'warn', detail: expect.stringContaining('set it again') });
    expect(await unsetStatusKey(w.engine)).toBe(true);
    expect(await readStatusKey(w.engine)).toBeNull();
    expect(await unsetStatusKey(w.engine)).toBe(false);
  });

  it('without a key, everything says "status services not configured" and nothing calls the host', async () => {
    const w = await world();
    await setSetting(w.engine, 'taxauth.status_url', w.sandbox.url);
    const check = await checkConnection(w.engine, w.tenant.id, 'test', { cache: new TokenCache() });
    expect(check.authorityStatus).toMatchObject({ configured: false, summary: 'status services not configured' });
    expect(await authorityStatusCheck.run(w.engine)).toEqual([{ name: 'taxauth-status', status: 'ok', detail: 'status services not configured' }]);
    expect(await watchTick(w.engine)).toBeNull();
    expect(w.control.status.calls()).toBe(0);
  });
});

describe('the authority status snapshot', () => {
  it('is read at most once per TTL by engine.clock; readiness reads it without calling the host', async () => {
    const w = await statusWorld();
    expect(await authorityStatusCheck.run(w.engine)).toEqual([
      { name: 'taxauth-status:test', status: 'warn', detail: expect.stringContaining('not read yet from the status host') },
    ]);
    expect(w.control.status.calls()).toBe(0);

    const first = await authorityStatus(w.engine, { refresh: 'stale' });
    expect(first.snapshot).toMatchObject({ error: null, problems: [], environments: { test: { status: 'Disponible', available: true } } });
    expect(w.control.status.calls()).toBe(5);
    await authorityStatus(w.engine, { refresh: 'stale' });
    w.clock.advance(STATUS_TTL_MS - 1);
    await authorityStatus(w.engine, { refresh: 'stale' });
    expect(w.control.status.calls()).toBe(5);
    w.clock.advance(1);
    await authorityStatus(w.engine, { refresh: 'stale' });
    expect(w.control.status.calls()).toBe(10);

    w.control.status.setAvailable('testecf', false);
    await authorityStatus(w.engine, { refresh: 'now' });
    const calls = w.control.status.calls();
    const [result] = await authorityStatusCheck.run(w.engine);
    expect(result).toEqual({ name: 'taxauth-status:test', status: 'warn', detail: expect.stringMatching(/^No Disponible; not available: Autenticación, Recepción/) });
    expect(w.control.status.calls()).toBe(calls);
  });

  it('shows the next maintenance window in the connection check, the doctor and readiness', async () => {
    const w = await statusWorld();
    w.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-12T13:00:00Z', endsAt: '2026-03-12T16:00:00Z' });
    w.control.status.addWindow({ environment: 'ecf', startsAt: '2026-03-11T13:00:00Z', endsAt: '2026-03-11T16:00:00Z' });
    const check = await checkConnection(w.engine, w.tenant.id, 'test', { cache: new TokenCache() });
    expect(check.authorityStatus).toEqual({
      configured: true,
      checkedAt: '2026-03-10T10:00:00.000-04:00',
      status: 'Disponible',
      available: true,
      servicesDown: [],
      inMaintenance: false,
      nextWindow: { startsAt: '2026-03-12T09:00:00.000-04:00', endsAt: '2026-03-12T12:00:00.000-04:00' },
      error: null,
      summary: 'Disponible; next maintenance window 2026-03-12T09:00:00.000-04:00 to 2026-03-12T12:00:00.000-04:00; checked 2026-03-10T10:00:00.000-04:00',
    });
    expect(await authorityStatusChecks(w.engine)).toEqual([{ check: 'taxauth-status:test', status: 'ok', detail: check.authorityStatus.summary }]);
    w.clock.set('2026-03-12T14:00:00Z');
    const [during] = await authorityStatusCheck.run(w.engine);
    expect(during!.status).toBe('warn');
    expect(during!.detail).toMatch(/in maintenance until 2026-03-12T12:00:00.000-04:00/);
    expect(during!.detail).toMatch(/minutes old/);
  });

  it('reports a refused key and an unknown answer shape clearly, and a window entry it cannot read by its place', async () => {
    const w = await statusWorld();
    w.control.status.setApiKey('rotated-key-0000');
    const refused = await authorityStatus(w.engine, { refresh: 'now' });
    expect(refused.snapshot!.error).toMatch(/refused the API key \(obtenerestatus, HTTP 401\); set the key the authority gave you: ecf taxauth status-key set/);
    expect(JSON.stringify(refused.snapshot)).not.toContain(SANDBOX_STATUS_API_KEY);

    w.control.status.setApiKey(SANDBOX_STATUS_API_KEY);
    w.control.status.garble(true);
    const garbled = await authorityStatus(w.engine, { refresh: 'now' });
    expect(garbled.snapshot!.problems).toEqual(
      expect.arrayContaining([
        'Unexpected answer from the status host (obtenerestatus): expected a list of {servicio, estatus, ambiente}, got an object with keys servicios.',
        'Unexpected answer from the status host (verificarestado): expected {estado: "Disponible" | "No Disponible"}, got an object with keys ok.',
      ]),
    );
    const [line] = await authorityStatusCheck.run(w.engine);
    expect(line!.status).toBe('warn');

    const { readWindows } = await import('../../../src/engine/taxauth/status-client.js');
    expect(readWindows([{ ambiente: 'Produccion', horaInicio: '25:00', horaFin: '4:00 PM', dias: ['06-08-2020'] }, { ambiente: 'Certificacion', horaInicio: '1:00 PM', horaFin: '4:00 PM', dias: ['2020-08-06', '31-02-2020'] }])).toEqual({
      windows: [{ environment: 'cert', ambiente: 'Certificacion', startsAt: '2020-08-06T17:00:00.000Z', endsAt: '2020-08-06T20:00:00.000Z' }],
      problems: ['ventanaMantenimientos[0].horaInicio "25:00" is not a time such as 9:00 AM', 'ventanaMantenimientos[1].dias[1] "31-02-2020" is not a date such as 06-08-2020'],
    });
  });
});

describe('contingency at an announced window', () => {
  it('starts when the window begins, without a failure, and ends once it is over and the authority answers', async () => {
    const w = await statusWorld();
    w.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-10T14:03:00Z', endsAt: '2026-03-10T17:00:00Z' });
    expect(await watchTick(w.engine)).toMatchObject({ active: false });

    w.clock.set('2026-03-10T14:03:00Z');
    // No call: the window was announced in the snapshot read three minutes before.
    const calls = w.control.status.calls();
    expect(await watchTick(w.engine)).toMatchObject({ active: true, source: 'window', windowEndsAt: '2026-03-10T17:00:00.000Z' });
    expect(w.control.status.calls()).toBe(calls);
    w.clock.advance(MINUTE);
    await noteTransportSuccess(w.engine);
    expect(await contingencyState(w.engine.db)).toMatchObject({ active: true, source: 'window' });

    // The window is over but the authority still says No Disponible: contingency holds.
    w.clock.set('2026-03-10T17:00:00Z');
    w.control.status.setAvailable('testecf', false);
    expect(await watchTick(w.engine)).toMatchObject({ active: true, source: 'window' });
    // It answers: a fresh read after the end ends it.
    w.control.status.setAvailable('testecf', true);
    w.clock.advance(MINUTE);
    expect(await watchTick(w.engine)).toMatchObject({ active: true });
    w.clock.advance(STATUS_TTL_MS);
    expect(await watchTick(w.engine)).toMatchObject({ active: false, source: null });
  });

  it('starts at the first failure inside a window instead of after contingency.after_minutes, and a success after the window ends it', async () => {
    const w = await statusWorld();
    w.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-10T15:00:00Z', endsAt: '2026-03-10T16:00:00Z' });
    expect(await noteTransportFailure(w.engine)).toMatchObject({ active: false });
    await noteTransportSuccess(w.engine);
    await authorityStatus(w.engine, { refresh: 'now' });
    w.clock.set('2026-03-10T15:05:00Z');
    expect(await noteTransportFailure(w.engine)).toMatchObject({ active: true, source: 'window' });
    w.clock.set('2026-03-10T16:00:00Z');
    expect(await noteTransportSuccess(w.engine)).toMatchObject({ active: false, source: null });
  });

  it('leaves the operator’s switch alone, and counts only production windows when a tenant works in production', async () => {
    const w = await statusWorld();
    w.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-10T15:00:00Z', endsAt: '2026-03-10T16:00:00Z' });
    await authorityStatus(w.engine, { refresh: 'now' });
    w.clock.set('2026-03-10T15:00:00Z');
    expect(await watchTick(w.engine)).toMatchObject({ active: true, source: 'window' });
    await setContingency(w.engine, false);
    expect(await watchTick(w.engine)).toMatchObject({ active: false });

    const { updateTenant } = await import('../../../src/engine/tenants/tenants.js');
    await updateTenant(w.engine, w.tenant.id, { defaultEnvironment: 'production' });
    w.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-10T18:00:00Z', endsAt: '2026-03-10T19:00:00Z' });
    w.control.status.addWindow({ environment: 'ecf', startsAt: '2026-03-10T20:00:00Z', endsAt: '2026-03-10T21:00:00Z' });
    await authorityStatus(w.engine, { refresh: 'now' });
    w.clock.set('2026-03-10T18:30:00Z');
    expect(await watchTick(w.engine)).toMatchObject({ active: false });
    w.clock.set('2026-03-10T20:30:00Z');
    expect(await watchTick(w.engine)).toMatchObject({ active: true, source: 'window', windowEndsAt: '2026-03-10T21:00:00.000Z' });
  });
});

describe('GET /api/v1/taxauth/connection', () => {
  it('carries the authority status and next window through the route schema', async () => {
    const { harness } = await import('../submission/harness.js');
    const h = await harness();
    await setSetting(h.engine, 'taxauth.status_url', h.sandbox.url);
    h.sandbox.control.status.addWindow({ environment: 'testecf', startsAt: '2026-03-12T13:00:00Z', endsAt: '2026-03-12T16:00:00Z' });
    const before = await api(h.app, h.keys).as('admin_tenant').get('/api/v1/taxauth/connection');
    expect(before.json().authorityStatus).toMatchObject({ configured: false, summary: 'status services not configured' });
    await setStatusKey(h.engine, SANDBOX_STATUS_API_KEY);
    const res = await api(h.app, h.keys).as('admin_tenant').get('/api/v1/taxauth/connection');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      environment: 'test',
      authenticated: true,
      authorityStatus: { configured: true, status: 'Disponible', available: true, inMaintenance: false, nextWindow: { startsAt: '2026-03-12T09:00:00.000-04:00', endsAt: '2026-03-12T12:00:00.000-04:00' } },
    });
    expect(res.body).not.toContain(SANDBOX_STATUS_API_KEY);
  });
});
