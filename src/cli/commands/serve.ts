import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { EngineError } from '../../engine/errors.js';
import { resolveTenant } from '../tenant-flag.js';
import { watchFolder, type FolderWatcher } from '../../engine/watch/folder.js';
import { describeWatchResult } from './watch.js';
import type { RunningWork } from '../../engine/work/background.js';
import { describeSandboxLoad, sandboxLoadFlags, sandboxLoadFromFlags } from '../sandbox-flags.js';

export default class Serve extends EcfCommand {
  static override description =
    'Serve the /api/v1 API on a local port and run the background jobs until stopped (Ctrl-C or SIGTERM)';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --host 0.0.0.0 --port 8787'];
  static override flags = {
    host: Flags.string({ description: 'Address to listen on; 0.0.0.0 opens it to the LAN', default: '127.0.0.1' }),
    port: Flags.integer({ description: 'TCP port (0 picks a free one)', default: 8787, min: 0, max: 65535 }),
    jobs: Flags.boolean({ description: 'Run the background jobs (submission, delivery, notices)', default: true, allowNo: true }),
    'log-level': Flags.string({ options: ['fatal', 'error', 'warn', 'info', 'debug'], default: 'info' }),
    sandbox: Flags.boolean({ description: 'Also run the built-in tax authority sandbox and send every environment to it', default: false }),
    watch: Flags.string({ description: 'Also issue the *.json files dropped into DIR/inbox, as `ecf watch DIR` does', helpValue: 'DIR' }),
    'watch-tenant': Flags.string({ description: 'Tenant id or RNC the dropped files are issued for (may be left out with one tenant)' }),
    'watch-follow': Flags.boolean({ description: "Rewrite the result JSON in DIR/done as the authority's verdict arrives", default: false }),
    'tls-cert': Flags.string({ description: 'Serve HTTPS with this certificate (PEM, the chain after it); needs --tls-key', helpValue: 'PEM', dependsOn: ['tls-key'] }),
    'tls-key': Flags.string({ description: 'The private key (PEM, unencrypted) of --tls-cert', helpValue: 'PEM', dependsOn: ['tls-cert'] }),
    // The built-in sandbox's latency and limits, as `ecf sandbox` takes them (with --sandbox only).
    ...sandboxLoadFlags,
  };

  async run() {
    const { flags } = await this.parse(Serve);
    // Loaded here, not at the top: every command's module is loaded on each start of `ecf`.
    const [{ buildApp }, { startScheduler }, { startSandbox }, { startBackgroundWork }] = await Promise.all([
      import('../../http/app.js'),
      import('../../jobs/scheduler.js'),
      import('../../sandbox/index.js'),
      import('../../engine/work/background.js'),
    ]);
    // Read before anything starts, so a wrong file stops serve with its reason and nothing half-started.
    const https = flags['tls-cert'] && flags['tls-key'] ? readTls(flags['tls-cert'], flags['tls-key'], new Date()) : undefined;
    const load = sandboxLoadFromFlags(flags);
    if (load && !flags.sandbox) this.error('The sandbox load flags (--latency, --max-in-flight, …) need --sandbox.', { exit: 2 });
    const sandbox = flags.sandbox ? await startSandbox({ host: '127.0.0.1', port: 0, ...(load && { load }) }) : undefined;
    // Read by the authority client here and in the job workers, which start after this.
    if (sandbox) process.env.ECF_TAXAUTH_SANDBOX_URL = sandbox.url;
    const engine = await this.engine(flags, { backgroundCheckpoints: true });
    const app = await buildApp({ engine, logger: { level: flags['log-level'] }, ...(https && { https: { key: https.key, cert: https.cert } }) });
    const address = await app.listen({ host: flags.host, port: flags.port });
    let scheduler: Scheduler | undefined;
    let work: RunningWork | undefined;
    if (flags.jobs) {
      // Submission and deliveries run here, woken by this process's commits at once; bree is the
      // clock of the periodic jobs, each in a worker thread of its own.
      work = await startBackgroundWork(engine, {
        onError: (error, source) => app.log.error({ err: error, source }, 'background work failed'),
      });
      scheduler = await startScheduler({
        dataDir: engine.dataDir,
        ...(engine.restartSignal && { checkpointedBy: engine.restartSignal }),
        onError: (job, error) => app.log.error({ job, err: error }, 'job failed'),
      });
    }
    let watcher: FolderWatcher | undefined;
    if (flags.watch) {
      const tenant = await resolveTenant(engine, flags['watch-tenant']);
      watcher = await watchFolder({
        engine,
        tenantId: tenant.id,
        dir: resolve(flags.watch),
        follow: flags['watch-follow'],
        onResult: (r) => app.log.info({ watch: r.file, ok: r.ok, encf: r.encf }, describeWatchResult(r)),
        onError: (err) => app.log.error({ err }, 'watch failed'),
      });
      this.log(`watching ${resolve(flags.watch)}/inbox for tenant ${tenant.rnc}`);
    }
    if (https?.warning) this.warn(https.warning);
    this.log(`ecf serving ${address}/api/v1 (docs at ${address}/docs), data in ${engine.dataDir}`);
    if (sandbox) this.log(`tax authority: the built-in sandbox at ${sandbox.url}${load ? ` (${describeSandboxLoad(load)})` : ''}`);

    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await watcher?.close();
    await scheduler?.stop();
    await work?.stop();
    await app.close();
    await sandbox?.close();
    return { address, stopped: true };
  }
}

const tlsError = (code: string, message: string) => new EngineError('validation', code, message);

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw tlsError('Serve.TlsUnreadable', `--${flag} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
}

/**
 * The certificate and key for HTTPS, checked here so each mistake gets its
 * own sentence instead of OpenSSL's: not PEM, an encrypted key, a key that is
 * not the certificate's. An expired certificate still serves (a test setup
 * may want it) with a warning, since the authority would refuse it.
 */
export function readTls(certPath: string, keyPath: string, now: Date): { cert: Buffer; key: Buffer; warning: string | null } {
  const cert = readPem(certPath, 'tls-cert');
  const key = readPem(keyPath, 'tls-key');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw tlsError('Serve.TlsCertificateInvalid', `--tls-cert ${certPath} is not a PEM certificate (-----BEGIN CERTIFICATE-----).`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    const encrypted = /ENCRYPTED/.test(key.toString('latin1')) || /passphrase/i.test((err as Error).message);
    throw tlsError(
      'Serve.TlsKeyInvalid',
      encrypted ? `--tls-key ${keyPath} is encrypted; give serve an unencrypted key (openssl pkey -in key.pem -out plain.pem).` : `--tls-key ${keyPath} is not a PEM private key.`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw tlsError('Serve.TlsKeyMismatch', `--tls-key ${keyPath} is not the private key of the certificate in --tls-cert ${certPath} (${certificate.subject.replace(/\n/g, ', ')}).`);
  }
  const expired = Date.parse(certificate.validTo) < now.getTime();
  return { cert, key, warning: expired ? `The TLS certificate expired on ${certificate.validTo}; callers that check it (the tax authority does) will refuse it.` : null };
}
