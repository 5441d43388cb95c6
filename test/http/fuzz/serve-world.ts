/**
 * The fuzz world's app listening on loopback in a process of its own, for
 * the wire fuzz (fuzz-wire.test.ts): a request that blocks this process's
 * event loop shows as a timeout in the test, which then kills it, instead of
 * freezing the test runner. Run with `node --import tsx` and an IPC channel;
 * the certificate comes in FUZZ_P12 (base64) and FUZZ_P12_PASSWORD.
 *
 * Messages in: { id, op: 'snapshot' | 'canary' | 'leaks' }; out: { ready }
 * once listening, then { id, result } per message.
 */
import type { AddressInfo } from 'node:net';
import { leaks } from './check.js';
import { snapshotStore } from './snapshot.js';
import { buildWorld } from './world.js';

const world = await buildWorld({ file: Buffer.from(process.env.FUZZ_P12 ?? '', 'base64'), password: process.env.FUZZ_P12_PASSWORD ?? '' });
await world.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = world.app.server.address() as AddressInfo;

/** Everything stored as text (blobs decoded as latin1), to search for leaked file content. */
async function storedText(): Promise<string> {
  const { sql } = await import('kysely');
  const names =
    world.engine.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(world.engine.db)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(world.engine.db)).rows;
  const parts: string[] = [];
  for (const { name } of names) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(world.engine.db);
    for (const row of rows.rows) for (const v of Object.values(row)) parts.push(v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : String(v));
  }
  return parts.join('\n');
}

process.on('message', (message: { id: number; op: string }) => {
  const answer = async (): Promise<unknown> => {
    if (message.op === 'snapshot') return (await snapshotStore(world.engine)).hash;
    if (message.op === 'canary') return world.canary.hits();
    if (message.op === 'leaks') return leaks(world, await storedText());
    throw new Error(`unknown op ${message.op}`);
  };
  answer().then(
    (result) => process.send!({ id: message.id, result }),
    (e: unknown) => process.send!({ id: message.id, error: String(e) }),
  );
});
process.on('disconnect', () => void world.close().finally(() => process.exit(0)));

process.send!({
  ready: {
    url: `http://127.0.0.1:${port}`,
    port,
    tenantId: world.tenantId,
    keys: world.keys,
    ecf: world.documents.ecf(),
    acecf: { xml: world.documents.acecf, fileName: world.documents.acecfFileName },
    canaryUrl: world.canary.url,
    secretPath: world.secretFile.path,
    secretToken: world.secretFile.token,
    requestTimeout: world.app.server.requestTimeout,
    headersTimeout: world.app.server.headersTimeout,
  },
});
