import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEY_POOL, makeIdentity, pooledKeyPath } from './certs.js';

// The test kit's certificates: keys come from a pool made once per machine, certificates are new each time.
describe('makeIdentity', () => {
  it('takes its key from the pool kept in the temp dir, and identities made one after another never share a key', () => {
    const made = Array.from({ length: KEY_POOL }, () => makeIdentity());
    const keys = made.map((m) => createPrivateKey(m.keyPem).export({ type: 'pkcs8', format: 'pem' }).toString());
    expect(new Set(keys).size).toBe(KEY_POOL);
    const pool = Array.from({ length: KEY_POOL }, (_, i) => readFileSync(pooledKeyPath(2048, i), 'utf8'));
    for (const key of keys) expect(pool).toContain(key);
    // Each certificate is new (its own serial) and holds the public half of its own key.
    expect(new Set(made.map((m) => new X509Certificate(m.certPem).serialNumber)).size).toBe(KEY_POOL);
    for (const m of made) expect(new X509Certificate(m.certPem).checkPrivateKey(createPrivateKey(m.keyPem))).toBe(true);
  });

  it('still makes keys of the size asked for, and signs with a key given', () => {
    const short = makeIdentity({ bits: 1024 });
    expect(new X509Certificate(short.certPem).publicKey.asymmetricKeyDetails?.modulusLength).toBe(1024);
    const other = makeIdentity();
    const mismatched = makeIdentity({ keyPem: other.keyPem });
    expect(mismatched.keyPem).toBe(other.keyPem);
  });
});
