import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TaxauthClient } from '../../src/engine/taxauth/client.js';
import { TaxauthError } from '../../src/engine/taxauth/errors.js';
import { startSandbox, type SandboxService, type StartSandboxOptions } from '../../src/sandbox/index.js';

/** A sandbox whose delays are recorded and, while `hold` is on, kept waiting until `release()`. */
async function loadedSandbox(options: StartSandboxOptions = {}) {
  const delays: { ms: number; service: SandboxService }[] = [];
  let held: (() => void)[] = [];
  let hold = false;
  let onHeld: ((n: number) => void) | undefined;
  const box = await startSandbox({
    ...options,
    delay: (ms, service) => {
      delays.push({ ms, service });
      if (!hold) return Promise.resolve();
      return new Promise<void>((resolve) => {
        held.push(resolve);
        onHeld?.(held.length);
      });
    },
  });
  onTestFinished(() => box.close());
  return {
    ...box,
    delays,
    /** From now on every delayed request waits for release(). */
    holdRequests() {
      hold = true;
    },
    /** Resolves once `n` requests are waiting in their delay. */
    held: (n: number) =>
      new Promise<void>((resolve) => {
        if (held.length >= n) return resolve();
        onHeld = (count) => {
          if (count >= n) resolve();
        };
      }),
    release() {
      hold = false;
      for (const r of held) r();
      held = [];
    },
  };
}

const get = async (url: string) => {
  const r = await request(url);
  return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
};

const postJson = async (url: string, body: unknown) => {
  const r = await request(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
};

describe('sandbox latency', () => {
  it('delays each service by its own fixed delay plus jitter, and never the control routes or the sandbox taxpayer', async () => {
    const box = await loadedSandbox({
      load: {
        latency: {
          auth: { delayMs: 10 },
          reception: { delayMs: 20, jitterMs: 4 },
          rfce: { delayMs: 30 },
          status: { delayMs: 40, jitterMs: 10 },
        },
      },
      random: () => 0.5,
    });
    const u = box.url;
    await get(`${u}/testecf/autenticacion/api/autenticacion/semilla`);
    await request(`${u}/certecf/autenticacion/api/autenticacion/validarsemilla`, { method: 'POST' }).then((r) => r.body.dump());
    await request(`${u}/testecf/recepcion/api/facturaselectronicas`, { method: 'POST' }).then((r) => r.body.dump());
    await request(`${u}/ecf/anulacionrangos/api/operaciones/anularrango`, { method: 'POST' }).then((r) => r.body.dump());
    await request(`${u}/testecf/aprobacioncomercial/api/aprobacioncomercial`, { method: 'POST' }).then((r) => r.body.dump());
    await request(`${u}/testecf/recepcionfc/api/recepcion/ecf`, { method: 'POST' }).then((r) => r.body.dump());
    await get(`${u}/testecf/consultaresultado/api/consultas/estado?trackid=x`);
    await get(`${u}/TESTECF/ConsultaEstado/api/consultas/estado?rncemisor=1`);
    await get(`${u}/testecf/consultatrackids/api/trackids/consulta`);
    await get(`${u}/testecf/consultadirectorio/api/consultas/listado`);
    const controlAnswers = [
      await get(`${u}/_sandbox/state`),
      await postJson(`${u}/_sandbox/script`, { clearScripts: true }),
      await request(`${u}/taxpayer/fe/aprobacioncomercial/api/ecf`, { method: 'POST' }).then(async (r) => ({ status: r.statusCode, body: await r.body.text() })),
    ];
    expect(controlAnswers.map((a) => a.status)).toEqual([200, 200, 400]);

    // jitter = floor(0.5 × (jitterMs + 1))
    expect(box.delays).toEqual([
      { ms: 10, service: 'auth' },
      { ms: 10, service: 'auth' },
      { ms: 22, service: 'reception' },
      { ms: 22, service: 'reception' },
      { ms: 22, service: 'reception' },
      { ms: 30, service: 'rfce' },
      { ms: 45, service: 'status' },
      { ms: 45, service: 'status' },
      { ms: 45, service: 'status' },
      { ms: 45, service: 'status' },
    ]);
    expect(box.control.stats()).toMatchObject({ delayed: 10, overloaded: 0 });
  });

  it('draws the jitter uniformly from 0 to jitterMs, both ends included', async () => {
    let next = 0;
    const draws = [0, 0.999_999, 0.5];
    const box = await loadedSandbox({ load: { latency: { all: { delayMs: 100, jitterMs: 9 } } }, random: () => draws[next++]! });
    for (let i = 0; i < 3; i++) await get(`${box.url}/testecf/consultadirectorio/api/consultas/listado`);
    expect(box.delays.map((d) => d.ms)).toEqual([100, 109, 105]);
  });

  it('waits for real with the default timer, and still answers (no duration is asserted)', async () => {
    const box = await startSandbox({ load: { latency: { all: { delayMs: 5, jitterMs: 5 } } } });
    onTestFinished(() => box.close());
    const seed = await get(`${box.url}/testecf/autenticacion/api/autenticacion/semilla`);
    expect(seed.status).toBe(200);
    expect(seed.body).toContain('<SemillaModel');
    expect(box.control.stats()).toMatchObject({ delayed: 1, maxInFlightSeen: 1 });
    expect(box.control.inFlight()).toBe(0);
  });

  it('closes promptly with requests still waiting a long latency', async () => {
    const box = await startSandbox({ load: { latency: { all: { delayMs: 120_000 } } } });
    const pending = request(`${box.url}/testecf/autenticacion/api/autenticacion/semilla`).then(
      () => 'answered',
      () => 'closed',
    );
    while (box.control.inFlight() === 0) await new Promise((r) => setImmediate(r));
    await box.close();
    expect(['answered', 'closed']).toContain(await pending);
  });
});

describe('sandbox cap of requests in flight', () => {
  it('answers 429 with Retry-After: 1 beyond maxInFlight while the others wait their latency; control routes are not counted', async () => {
    const box = await loadedSandbox({ load: { latency: { all: { delayMs: 50 } }, maxInFlight: 3, overloadStatus: '429' } });
    box.holdRequests();
    const seedUrl = `${box.url}/testecf/autenticacion/api/autenticacion/semilla`;
    const waiting = [get(seedUrl), get(seedUrl), get(`${box.url}/testecf/consultadirectorio/api/consultas/listado`)];
    await box.held(3);
    expect(box.control.inFlight()).toBe(3);

    const over = await get(seedUrl);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.body).toContain('Too Many Requests');

    // An upload refused before it is read: the engine's client sees a transient HTTP error.
    const client = new TaxauthClient({ baseUrl: `${box.url}/testecf`, fcUrl: `${box.url}/testecf`, timeoutMs: 5_000 });
    const refused = await client.sendEcf('any-token', { rnc: '131234567', encf: 'E310000000001', xml: Buffer.from('<ECF/>'.repeat(2_000)) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TaxauthError);
    expect(refused).toMatchObject({ kind: 'http', status: 429, transient: true });

    const state = await get(`${box.url}/_sandbox/state`);
    expect(state.status).toBe(200);
    expect(JSON.parse(state.body)).toMatchObject({ inFlight: 3, load: { maxInFlight: 3, overloadStatus: '429' } });
    expect((await postJson(`${box.url}/_sandbox/script`, { clearScripts: true })).status).toBe(200);

    box.release();
    // The listing needs a token: a 401, after its wait like any other answer.
    expect((await Promise.all(waiting)).map((a) => a.status)).toEqual([200, 200, 401]);
    expect(box.control.stats()).toMatchObject({ overloaded: 2, maxInFlightSeen: 3 });
    while (box.control.inFlight() > 0) await new Promise((r) => setImmediate(r));

    // Room again: the next request is admitted.
    expect((await get(seedUrl)).status).toBe(200);
  });

  it('answers 503 by default, and alternates 429 and 503 when mixed', async () => {
    const box = await loadedSandbox({ load: { latency: { all: { delayMs: 1 } }, maxInFlight: 1 } });
    const url = `${box.url}/testecf/autenticacion/api/autenticacion/semilla`;
    box.holdRequests();
    const first = get(url);
    await box.held(1);
    const plain = await get(url);
    expect(plain.status).toBe(503);
    expect(plain.headers['retry-after']).toBe('1');
    expect(plain.body).toContain('Service Unavailable');

    expect((await postJson(`${box.url}/_sandbox/script`, { load: { overloadStatus: 'mixed' } })).status).toBe(200);
    const mixed = [];
    for (let i = 0; i < 4; i++) mixed.push((await get(url)).status);
    expect(mixed).toEqual([429, 503, 429, 503]);
    box.release();
    expect((await first).status).toBe(200);
    expect(box.control.stats()).toMatchObject({ overloaded: 5, maxInFlightSeen: 1 });
  });

  it('counts a request in flight from its arrival until its answer, latency included, also without a cap', async () => {
    const box = await loadedSandbox({ load: { latency: { status: { delayMs: 1 } } } });
    box.holdRequests();
    const url = `${box.url}/testecf/consultadirectorio/api/consultas/listado`;
    const waiting = Array.from({ length: 5 }, () => get(url));
    await box.held(5);
    expect(box.control.inFlight()).toBe(5);
    box.release();
    await Promise.all(waiting);
    expect(box.control.stats().maxInFlightSeen).toBe(5);
    expect(box.control.stats().overloaded).toBe(0);
  });
});

describe('sandbox load settings', () => {
  it('are changed through POST /_sandbox/script, shown by GET /_sandbox/state, and kept by reset', async () => {
    const box = await loadedSandbox();
    const set = await postJson(`${box.url}/_sandbox/script`, {
      load: { latency: { all: { delayMs: 300, jitterMs: 50 }, status: { delayMs: 100 } }, maxInFlight: 64, overloadStatus: '429' },
    });
    expect(set.status).toBe(200);
    const expected = {
      latency: {
        auth: { delayMs: 300, jitterMs: 50 },
        reception: { delayMs: 300, jitterMs: 50 },
        rfce: { delayMs: 300, jitterMs: 50 },
        status: { delayMs: 100, jitterMs: 50 },
      },
      maxInFlight: 64,
      overloadStatus: '429',
    };
    expect(set.body).toEqual({ ok: true, load: expected });
    expect(JSON.parse((await get(`${box.url}/_sandbox/state`)).body).load).toEqual(expected);

    // What is left out stays; null removes the cap.
    const lifted = await postJson(`${box.url}/_sandbox/script`, { load: { maxInFlight: null, latency: { rfce: { jitterMs: 0 } } } });
    expect(lifted.body.load).toEqual({ ...expected, maxInFlight: null, latency: { ...expected.latency, rfce: { delayMs: 300, jitterMs: 0 } } });

    expect((await postJson(`${box.url}/_sandbox/script`, { reset: true })).status).toBe(200);
    expect(box.control.load()).toMatchObject({ overloadStatus: '429', latency: { auth: { delayMs: 300 } } });
    expect(box.control.stats()).toMatchObject({ delayed: 0, overloaded: 0 });

    expect(box.control.setLoad({ latency: { all: { delayMs: 0, jitterMs: 0 } } }).latency.status).toEqual({ delayMs: 0, jitterMs: 0 });
  });

  it('refuses invalid settings with 400 naming the field, and changes nothing', async () => {
    const box = await loadedSandbox({ load: { maxInFlight: 8 } });
    const cases: [unknown, string][] = [
      [{ load: { latency: { reception: { delayMs: -1 } } } }, '/load/latency/reception/delayMs'],
      [{ load: { latency: { status: { jitterMs: 120_001 } } } }, '/load/latency/status/jitterMs'],
      [{ load: { latency: { all: { delayMs: 1.5 } } } }, '/load/latency/all/delayMs'],
      [{ load: { latency: { ftp: { delayMs: 1 } } } }, '/load/latency/ftp'],
      [{ load: { maxInFlight: 0 } }, '/load/maxInFlight'],
      [{ load: { overloadStatus: '500' } }, '/load/overloadStatus'],
      [{ load: { speed: 'slow' } }, '/load/speed'],
      [{ load: 'fast' }, '/load'],
      [{ load: {}, reset: true }, '/reset'],
    ];
    for (const [body, field] of cases) {
      const answer = await postJson(`${box.url}/_sandbox/script`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect((answer.body.errors as string[]).join('\n'), JSON.stringify(body)).toContain(`${field}:`);
    }
    expect(box.control.load().maxInFlight).toBe(8);
    expect(() => box.control.setLoad({ maxInFlight: -3 })).toThrow(/maxInFlight/);
    await expect(startSandbox({ load: { latency: { auth: { delayMs: 999_999 } } } })).rejects.toThrow(/\/latency\/auth\/delayMs/);
  });
});
