// Starts the appliance on a demo tenant in ./.data/demo, creating what is missing,
// and prints a fresh admin key with a curl line to try. Run through `npm run demo`.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = process.env.ECF_DATA_DIR ?? join(root, '.data', 'demo');
const port = process.env.PORT ?? '8787';
const ecf = (...args) =>
  JSON.parse(execFileSync(process.execPath, [join(root, 'bin/ecf.js'), ...args, '--data-dir', dataDir, '--json'], { encoding: 'utf8' }));

ecf('init');
let tenant = ecf('tenant', 'list').find((t) => t.rnc === '130000001');
if (!tenant) {
  const { organization } = ecf('org', 'create', '--name', 'Demo Contadores', '--plan', 'office', '--owner-name', 'Demo Owner');
  tenant = ecf('tenant', 'create', '--rnc', '130000001', '--legal-name', 'Demo Ferretería Ñoño SRL', '--trade-name', 'Ferretería Ñoño', '--org', organization.id);
  ecf('tenant', 'profile', tenant.id, '--address', 'Calle El Conde 12', '--municipality', '010100', '--province', '010000', '--phone', '809-555-1234');
}
const { key } = ecf('key', 'create', '--tenant', tenant.id, '--role', 'admin_tenant', '--name', 'demo');

console.log(`Demo tenant ${tenant.legalName} (RNC ${tenant.rnc}), data in ${dataDir}`);
console.log(`Admin key (shown once): ${key}`);
console.log(`Try: curl -H 'X-API-Key: ${key}' http://127.0.0.1:${port}/api/v1/emitter-profile`);
const server = spawn(process.execPath, [join(root, 'bin/ecf.js'), 'serve', '--port', port, '--data-dir', dataDir], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
