import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { seedIssuer, testEngine } from '../../helpers.js';

/**
 * A store the backup tests fill and restore: secrets in encrypted files under
 * this data directory's key (a restore gets another key, as another machine
 * would), an issuer, and the built-in sandbox as the authority over loopback.
 * The sandbox is pushed onto `closing`, which the test's afterEach empties.
 */
export async function sandboxedStore(closing: { close(): Promise<unknown> }[], rangeSize: number) {
  const engine = await testEngine();
  ensureSecretStoreKey(engine.dataDir);
  await setSetting(engine, 'secrets.store', 'file');
  const sandbox: RunningSandbox = await startSandbox({ clock: engine.clock });
  closing.push(sandbox);
  await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.timeout_ms', 2000);
  const { tenant } = await seedIssuer(engine, { rangeSize });
  return { engine, sandbox, tenant };
}
