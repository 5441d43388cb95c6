import { X509Certificate } from 'node:crypto';
import { expect } from 'vitest';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { harness } from '../submission/harness.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';

/** The signed ANECF of an annulment, as stored (read back through the document store). */
export async function storedAnecf(engine: Engine, id: string): Promise<{ xml: string; sha256: string }> {
  const row = await engine.db.selectFrom('annulments').select(['xml', 'xml_sha256']).where('id', '=', id).executeTakeFirstOrThrow();
  const bytes = await engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'annulments', id });
  return { xml: bytes.toString('utf8'), sha256: row.xml_sha256 };
}

/**
 * An ANECF as the authority checks it: valid against the official schema,
 * and its signature verified by xmlsec1 with the certificate it carries,
 * which is the tenant's signing certificate.
 */
export async function expectValidAnecf(engine: Engine, tenantId: string, xml: string): Promise<void> {
  const schema = validateAgainstSchema('anecf', xml);
  expect(schema.errors).toEqual([]);
  expect(schema.valid).toBe(true);
  const base64 = /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(xml)?.[1];
  expect(base64).toBeDefined();
  const carried = new X509Certificate(Buffer.from(base64!, 'base64'));
  const { certificate } = await signingCredentials(engine, tenantId);
  expect(carried.fingerprint256).toBe(certificate.fingerprint256);
  const verdict = verifyWithXmlsec1(xml, carried.toString());
  expect(verdict.ok, verdict.output).toBe(true);
}

/** The submission harness (engine + sandbox over loopback) with a second type-31 range, 1001–30000, for large requests. */
export async function annulHarness(options: { timeoutMs?: number } = {}) {
  const h = await harness(options);
  await addRange(h.engine, { tenantId: h.tenant.id, environment: 'test', type: 31, rangeFrom: 1001, rangeTo: 30_000, expiresOn: '2035-12-31' });
  return h;
}

export const line = (type: number, rangeFrom: number, rangeTo: number, series = 'E') => ({ type, series, rangeFrom, rangeTo });
