import { describe, expect, it } from 'vitest';
import { receptionHarness } from './harness.js';

describe('GET /received-ecf query names', () => {
  it('refuses prototype names like any unknown parameter, naming them, instead of dropping them', async () => {
    const h = await receptionHarness();
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const res = await h.api('GET', `/api/v1/received-ecf?${name}=x`);
      expect(res.status, name).toBe(400);
      const body = await res.json();
      expect(body.code).toBeTypeOf('string');
      expect(JSON.stringify(body.errors ?? body.detail)).toContain(name);
    }
    expect((await h.api('GET', '/api/v1/received-ecf?status=received')).status).toBe(200);
  });
});
