import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../../src/engine/data-dir.js';
import { openEngine } from '../../../../src/engine/engine.js';
import type { Engine } from '../../../../src/engine/engine-types.js';
import { issueEcf } from '../../../../src/engine/ecf/issue.js';
import { ecfXml } from '../../../../src/engine/ecf/queries.js';
import { parseBlob } from '../../../../src/engine/store/documents/index.js';
import { buildApp } from '../../../../src/http/app.js';
import { api } from '../../../api.js';
import { STORE, invoice31, seedIssuer, testEngine } from '../../../helpers.js';
import { verifyWithXmlsec1 } from '../../signing/verify-tools.js';

const consumo32 = { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Pan sobao', quantity: 3, unitPrice: '45.00' }] };

async function issue(engine: Engine, tenantId: string, key: string, payload: unknown) {
  return (await issueEcf(engine, tenantId, { idempotencyKey: key, payload })).ecf;
}

const stored = (engine: Engine, id: string) => engine.db.selectFrom('ecf_documents').selectAll().where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', id)).executeTakeFirstOrThrow();

describe('issued e-CF in the compressed store', () => {
  it('are stored compressed and read back as signed: xmlsec1 verifies them, the RFCE too', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = [
      await issue(engine, tenant.id, 'a', invoice31()),
      await issue(engine, tenant.id, 'b', invoice31({ lines: Array.from({ length: 12 }, (_, i) => ({ name: `Artículo ${i}`, quantity: i + 1, unitPrice: '99.95' })) })),
      await issue(engine, tenant.id, 'c', consumo32),
    ];
    for (const ecf of issued) {
      const row = await stored(engine, ecf.id);
      expect(parseBlob(row.xml).kind, 'compressed layout').toBe('compressed');
      expect(row.xml_sha256).toHaveLength(32);
      const { bytes } = await ecfXml(engine, tenant.id, ecf.id);
      expect(row.xml.length).toBeLessThan(bytes.length / 3);
      const text = bytes.toString('utf8');
      const certificate = new X509Certificate(Buffer.from(/<X509Certificate>([^<]+)<\/X509Certificate>/.exec(text)![1]!, 'base64'));
      const verdict = verifyWithXmlsec1(text, certificate.toString());
      expect(verdict.ok, verdict.output).toBe(true);
    }
    const rfce = (await ecfXml(engine, tenant.id, issued[2]!.id, true)).bytes.toString('utf8');
    expect(rfce).toContain('<RFCE');
    expect((await stored(engine, issued[2]!.id)).rfce_sha256).toHaveLength(32);
    // One certificate for the three e-CF and the RFCE.
    expect(await engine.db.selectFrom('document_certificates').select('id').execute()).toHaveLength(1);
  });

  it('a byte flipped in a stored document, in the database itself, is DocumentDamaged naming the e-CF; GET …/xml answers a problem, never other bytes', async () => {
    let engine: Engine = await testEngine();
    const { tenant, keys } = await seedIssuer(engine);
    const ecf = await issue(engine, tenant.id, 'a', invoice31());
    const { xml: blob } = await stored(engine, ecf.id);
    const flipped = Buffer.from(blob);
    const at = Math.floor(blob.length / 2);
    flipped[at]! ^= 0x10;
    if (STORE === 'sqlite') {
      // In the file itself: closed (the WAL checkpointed into it), the blob's bytes found and one flipped.
      const dataDir = engine.dataDir;
      await engine.close();
      const file = join(dataDir, DATABASE_FILE);
      const bytes = readFileSync(file);
      const where = bytes.indexOf(blob);
      expect(where, 'the blob is in the database file').toBeGreaterThan(0);
      expect(bytes.indexOf(blob, where + 1), 'once').toBe(-1);
      bytes[where + at]! ^= 0x10;
      writeFileSync(file, bytes);
      engine = await openEngine({ dataDir, clock: engine.clock });
    } else {
      await engine.db.updateTable('ecf_documents').set({ xml: flipped }).where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', ecf.id)).execute();
    }
    try {
      expect((await stored(engine, ecf.id)).xml.equals(flipped)).toBe(true);
      await expect(ecfXml(engine, tenant.id, ecf.id)).rejects.toMatchObject({ code: 'Store.DocumentDamaged', message: expect.stringContaining(`ecf_documents.xml ${ecf.id} (e-NCF ${ecf.encf})`) });
      const app = await buildApp({ engine });
      const res = await api(app).key(keys.consultor).get(`/api/v1/ecf/${ecf.id}/xml`);
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'Store.DocumentDamaged', detail: expect.stringContaining(ecf.encf) });
      expect(res.body).not.toContain('<ECF');
      await app.close();
    } finally {
      if (STORE === 'sqlite') await engine.close();
    }
  });

  it('a store written without compression (the old layout) reads back, checked against ecf.document_hash', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const old = await openEngine({ dataDir: engine.dataDir, clock: engine.clock, compressDocuments: false });
    let ecf;
    try {
      ecf = await issue(old, tenant.id, 'old', consumo32);
    } finally {
      await old.close();
    }
    const row = await stored(engine, ecf.id);
    expect(row.xml.subarray(0, 5).toString()).toBe('<?xml');
    expect(row.xml_sha256).toBeNull();
    expect(row.rfce_sha256).toBeNull();
    expect(await engine.db.selectFrom('document_certificates').select('id').execute()).toHaveLength(0);
    expect((await ecfXml(engine, tenant.id, ecf.id)).bytes.equals(row.xml)).toBe(true);
    expect((await ecfXml(engine, tenant.id, ecf.id, true)).bytes.equals(row.rfce_xml!)).toBe(true);
    // Its digest still guards it: ecf.document_hash.
    const flipped = Buffer.from(row.xml);
    flipped[200]! ^= 0x01;
    await engine.db.updateTable('ecf_documents').set({ xml: flipped }).where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', ecf.id)).execute();
    await expect(ecfXml(engine, tenant.id, ecf.id)).rejects.toMatchObject({ code: 'Store.DocumentDamaged' });
  });
});
