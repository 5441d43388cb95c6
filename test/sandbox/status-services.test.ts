import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/engine/clock.js';
import { SANDBOX_STATUS_API_KEY } from '../../src/sandbox/index.js';
import { sandbox } from '../engine/taxauth/fixtures.js';

const KEY = { authorization: `Apikey ${SANDBOX_STATUS_API_KEY}` };

async function get(url: string, headers: Record<string, string> = KEY): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('sandbox status services (statusecf)', () => {
  it('refuses a request without the Apikey header or with a wrong key (401), on all three services', async () => {
    const box = await sandbox();
    for (const path of ['obtenerestatus', 'obtenerventanasmantenimiento', 'verificarestado?ambiente=1']) {
      const url = `${box.url}/api/estatusservicios/${path}`;
      expect((await get(url, {})).status).toBe(401);
      expect((await get(url, { authorization: 'Apikey wrong-key-123' })).status).toBe(401);
      expect((await get(url, { authorization: `Bearer ${SANDBOX_STATUS_API_KEY}` })).status).toBe(401);
      expect((await get(url)).status).toBe(200);
    }
    expect(box.control.status.calls()).toBe(12);
  });

  it('answers in the documented shapes, and follows the status set per environment', async () => {
    const box = await sandbox();
    const services = (await get(`${box.url}/api/estatusservicios/obtenerestatus`)).body as { servicio: string; estatus: string; ambiente: string }[];
    expect(services).toContainEqual({ servicio: 'Recepción', estatus: 'Disponible', ambiente: 'Produccion' });
    expect(new Set(services.map((s) => s.ambiente))).toEqual(new Set(['PreCertificacion', 'Produccion', 'Certificacion']));
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=2`)).body).toEqual({ estado: 'Disponible' });

    expect((await post(`${box.url}/_sandbox/status`, { environment: 'ecf', available: false })).status).toBe(200);
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=2`)).body).toEqual({ estado: 'No Disponible' });
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=1`)).body).toEqual({ estado: 'Disponible' });
    const after = (await get(`${box.url}/api/estatusservicios/obtenerestatus`)).body as { estatus: string; ambiente: string }[];
    expect(after.filter((s) => s.ambiente === 'Produccion').every((s) => s.estatus === 'No Disponible')).toBe(true);
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=9`)).status).toBe(400);
  });

  it('announces windows in Dominican time, grouped by hours, and is in maintenance during them', async () => {
    const clock = new ManualClock('2026-03-10T12:00:00.000Z');
    const box = await sandbox(clock);
    const add = async (environment: string, startsAt: string, endsAt: string) =>
      ((await post(`${box.url}/_sandbox/status`, { addWindow: { environment, startsAt, endsAt } })).body as { window: { id: string } }).window.id;
    // 13:00–16:00 UTC is 9:00 AM–12:00 PM in Santo Domingo.
    await add('ecf', '2026-03-12T13:00:00Z', '2026-03-12T16:00:00Z');
    await add('ecf', '2026-03-19T13:00:00Z', '2026-03-19T16:00:00Z');
    const late = await add('testecf', '2026-03-11T02:00:00Z', '2026-03-11T05:30:00Z');
    const body = (await get(`${box.url}/api/estatusservicios/obtenerventanasmantenimiento`)).body;
    expect(body).toEqual({
      ventanaMantenimientos: [
        { ambiente: 'PreCertificacion', horaInicio: '10:00 PM', horaFin: '1:30 AM', dias: ['10-03-2026'] },
        { ambiente: 'Produccion', horaInicio: '9:00 AM', horaFin: '12:00 PM', dias: ['12-03-2026', '19-03-2026'] },
      ],
    });

    clock.set('2026-03-12T14:00:00Z');
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=2`)).body).toEqual({ estado: 'No Disponible' });
    clock.set('2026-03-12T16:00:00Z');
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=2`)).body).toEqual({ estado: 'Disponible' });

    expect((await post(`${box.url}/_sandbox/status`, { removeWindow: late })).body).toEqual({ ok: true });
    expect(box.control.status.windows()).toHaveLength(2);
    await post(`${box.url}/_sandbox/status`, { clearWindows: true });
    expect((await get(`${box.url}/api/estatusservicios/obtenerventanasmantenimiento`)).body).toEqual({ ventanaMantenimientos: [] });
  });

  it('refuses bad control commands naming the field, and can change its key or garble its answers', async () => {
    const box = await sandbox();
    const bad = await post(`${box.url}/_sandbox/status`, { addWindow: { environment: 'ecf', startsAt: 'tomorrow', endsAt: '2026-03-12T16:00:00Z' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('/addWindow/startsAt');
    const long = await post(`${box.url}/_sandbox/status`, { addWindow: { environment: 'ecf', startsAt: '2026-03-12T13:00:00Z', endsAt: '2026-03-14T13:00:00Z' } });
    expect(long).toEqual({ status: 400, body: { error: 'invalid sandbox status command', errors: ['addWindow: a window lasts at most 24 hours'] } });

    await post(`${box.url}/_sandbox/status`, { apiKey: 'another-key-5678' });
    expect((await get(`${box.url}/api/estatusservicios/obtenerestatus`)).status).toBe(401);
    expect((await get(`${box.url}/api/estatusservicios/obtenerestatus`, { authorization: 'apikey another-key-5678' })).status).toBe(200);

    box.control.status.garble(true);
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=1`, { authorization: 'Apikey another-key-5678' })).body).toEqual({ ok: 1 });
    box.control.reset();
    expect((await get(`${box.url}/api/estatusservicios/verificarestado?ambiente=1`)).body).toEqual({ estado: 'Disponible' });
  });
});
