import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { api } from '../../api.js';

/*
 * A builder that disagrees with the schema is a defect no valid input should
 * reach; to see what issuing does when it happens anyway, the schema check
 * here also refuses any document carrying a marker in a line name.
 */
const MARKER = 'defecto-del-constructor';
vi.mock('../../../src/engine/xml/xsd.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/engine/xml/xsd.js')>();
  return {
    ...real,
    validateAgainstSchema: (kind: Parameters<typeof real.validateAgainstSchema>[0], xml: string | Buffer) => {
      const text = xml.toString();
      if (text.includes(MARKER)) return { valid: false, errors: [`line 1: Element 'NombreItem': [facet 'pattern'] The value '${MARKER}' is not accepted.`] };
      return real.validateAgainstSchema(kind, xml);
    },
  };
});

describe('issuing when the built e-CF fails its schema', () => {
  it('answers a 400 naming the element and value, signs and stores nothing, and gives the e-NCF back', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const { tenant, keys } = await seedIssuer(engine);
    const issue = (payload: unknown, key: string) =>
      api(app, keys).as('emisor').post('/api/v1/ecf', JSON.stringify(payload), { headers: { 'content-type': 'application/json', 'idempotency-key': key } });
    const count = async (table: 'ecf' | 'ecf_documents' | 'work' | 'events') =>
      Number((await engine.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = { ecf: await count('ecf'), documents: await count('ecf_documents'), work: await count('work'), events: await count('events') };

    const refused = await issue(invoice31({ lines: [{ name: MARKER, quantity: 1, unitPrice: '10.00' }] }), 'k-defect');
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json()).toMatchObject({ status: 400, code: 'Document.SchemaMismatch' });
    expect(refused.json().detail).toContain("Element 'NombreItem'");
    expect(refused.json().detail).toContain(MARKER);
    expect({ ecf: await count('ecf'), documents: await count('ecf_documents'), work: await count('work'), events: await count('events') }).toEqual(before);

    // The number the refused document was given is the next one issued.
    const next = await issue(invoice31(), 'k-next');
    expect(next.statusCode).toBe(201);
    expect(next.json().encf).toBe('E310000000001');
    expect(next.json().tenantId ?? tenant.id).toBe(tenant.id);
    await app.close();
    await engine.close();
  });
});
