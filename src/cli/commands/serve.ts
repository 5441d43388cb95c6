import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { EngineError } from '../../engine/errors.js';
import { resolveTenant } from '../tenant-flag.js';
import type { FolderWatcher } from '../../watch/folder.js';
import type { StatusWatch } from '../../engine/submission/contingency-watch.js';
import type { RunningWork } from '../../engine/background-work.js';
import type { RunningConversion } from '../../engine/store/document-upkeep.js';
import { openEngine } from '../../engine/engine.js';
import type { Engine } from '../../engine/engine-types.js';
import { requireSecretKey } from '../../engine/secrets/index.js';
import type { EngineLog } from '../../engine/log/index.js';
import type { LogFormat } from '../../http/logging.js';
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
    'log-format': Flags.string({
      description: 'JSON lines (the default when stdout is not a terminal) or pretty lines for people (the default on a terminal)',
      options: ['json', 'pretty'],
    }),
    'stop-timeout': Flags.integer({
      description: 'Seconds a stop (SIGTERM, SIGINT) may take: in-flight requests and authority calls finish or are handed back, then it exits; keep it under systemd\'s TimeoutStopSec',
      default: 20,
      min: 2,
      max: 600,
      helpValue: 'SECONDS',
    }),
    'stop-drain': Flags.integer({
      description: 'Seconds a stop keeps serving before it closes the listener: readiness fails and every answer closes its connection, so a balancer moves clients elsewhere first; at most half of --stop-timeout',
      default: 5,
      min: 0,
      max: 300,
      helpValue: 'SECONDS',
    }),
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
    // Loaded here, and only what the flags ask for: the jobs (bree) and the sandbox are a good part
    // of serve's start-up, and `--no-jobs` nodes or a production serve never use them.
    const [{ buildApp }, { serverLoggerOptions, logFormatOf }, { withRequestIds }, { default: closeWithGrace }] = await Promise.all([
      import('../../http/app.js'),
      import('../../http/logging.js'),
      import('../../http/request-context.js'),
      import('close-with-grace'),
    ]);
    // Read before anything starts, so a wrong file stops serve with its reason and nothing half-started.
    const https = flags['tls-cert'] && flags['tls-key'] ? readTls(flags['tls-cert'], flags['tls-key'], new Date()) : undefined;
    const load = sandboxLoadFromFlags(flags);
    if (load && !flags.sandbox) this.error('The sandbox load flags (--latency, --max-in-flight, …) need --sandbox.', { exit: 2 });
    const logger = await serverLoggerOptions({ level: flags['log-level'], ...(flags['log-format'] && { format: flags['log-format'] as LogFormat }) });
    const sandbox = flags.sandbox ? await (await import('../../sandbox/index.js')).startSandbox({ host: '127.0.0.1', port: 0, ...(load && { load }) }) : undefined;
    // Read by the authority client here and in the job workers, which start after this.
    if (sandbox) process.env.ECF_TAXAUTH_SANDBOX_URL = sandbox.url;
    // The engine logs through the server's pino logger, which exists once the app is built.
    const engineLog = forwardingLog();
    // Opened here rather than through this.engine(): it is closed by the stop, last, not when run() returns.
    const engine = await openEngine({ dataDir: this.dataDir(flags), backgroundCheckpoints: true, log: engineLog });
    try {
      // Before listening: a node whose secret-store key is gone cannot sign, and must not make a new key.
      await requireSecretKey(engine);
    } catch (e) {
      await engine.close();
      await sandbox?.close();
      throw e;
    }
    const app = await buildApp({ engine, logger, ...(https && { https: { key: https.key, cert: https.cert } }) });
    // State changes made by a request carry its reqId, as the request's own lines do.
    engineLog.to(withRequestIds(app.log));
    // Start lines: plain text for a person at a terminal (the pretty format); in the JSON stream a
    // JSON line like any other, written whatever --log-level (a service's "I am up" is always wanted).
    const human = logFormatOf(flags['log-format'] as LogFormat | undefined) === 'pretty';
    const startLog = app.log.child({}, { level: 'info' });
    const say = (fields: object, line: string) => (human ? this.log(line) : startLog.info(fields, line));
    let address: string;
    try {
      address = await app.listen({ host: flags.host, port: flags.port });
    } catch (e) {
      await app.close();
      await engine.close();
      await sandbox?.close();
      throw listenError(e, flags.host, flags.port);
    }
    let scheduler: Scheduler | undefined;
    let work: RunningWork | undefined;
    let watcher: FolderWatcher | undefined;
    let statusWatch: StatusWatch | undefined;
    let conversion: RunningConversion | undefined;
    const stopMs = flags['stop-timeout'] * 1000;
    const budgetMs = stopMs - Math.min(STOP_MARGIN_MS, stopMs / 4);
    // The drain leaves at least half the budget to the requests and calls in flight after it.
    const drainMs = Math.min(flags['stop-drain'] * 1000, budgetMs / 2);
    let stopping: Promise<void> | undefined;
    // Once, whoever asks first: a signal, or a start-up that failed.
    // A start-up that failed has served no one: it stops without draining.
    const stop = (drain = drainMs) => (stopping ??= stopServe({ app, engine, work, scheduler, watcher, statusWatch, conversion, sandbox, budgetMs, drainMs: drain }));
    let startup: Promise<void> = Promise.resolve();

    // close-with-grace, installed before the jobs start, so a signal during start-up stops cleanly
    // too (after start-up ends, then all of it): the first SIGTERM or SIGINT runs the stop below and
    // exits 0 when it ends, 1 past the deadline; a second signal exits 1 at once. The stop keeps a
    // margin under the deadline, so it ends (handing back what is still in flight) before
    // close-with-grace gives up.
    closeWithGrace(
      {
        delay: stopMs,
        logger: false,
        onSecondSignal: (signal) => app.log.warn({ signal }, `second ${signal}: exiting at once; leases still held expire and their work runs again`),
        onTimeout: (ms) => app.log.error({ stopTimeoutMs: ms }, 'stop took longer than --stop-timeout; exiting'),
      },
      async ({ signal, err }) => {
        if (err) app.log.error({ err }, 'stopping after an uncaught error');
        // Said whatever the level, as the start lines are: a person who pressed Ctrl-C sees why the drain waits.
        const drain = drainMs > 0 ? `; answering for ${drainMs / 1000} s more (--stop-drain), a second ${signal ?? 'signal'} exits at once` : '';
        say({ signal, stopTimeoutMs: stopMs, drainMs }, `stopping${signal ? ` on ${signal}` : ''}${drain}`);
        await startup.catch(() => undefined);
        await stop();
        app.log.info({}, 'stopped');
      },
    );

    startup = (async () => {
      if (flags.jobs) {
        // Submission and deliveries run here, woken by this process's commits at once; bree is the
        // clock of the periodic jobs, each in a worker thread of its own.
        const [{ startBackgroundWork }, { startScheduler }, { startStatusWatch }] = await Promise.all([
          import('../../engine/background-work.js'),
          import('../../jobs/scheduler.js'),
          import('../../engine/submission/contingency-watch.js'),
        ]);
        work = await startBackgroundWork(engine, {
          onError: (error, source) => app.log.error({ err: error, source }, 'background work failed'),
        });
        scheduler = await startScheduler({
          dataDir: engine.dataDir,
          ...(engine.restartSignal && { checkpointedBy: engine.restartSignal }),
          onError: (job, error) => app.log.error({ job, err: error }, 'job failed'),
        });
        // The authority's status host (with its API key set): read at most every 5 minutes across
        // the nodes, and contingency started when an announced maintenance window begins.
        statusWatch = startStatusWatch(engine, { onError: (err) => app.log.warn({ err }, 'authority status watch failed') });
        // Documents an older release stored raw are compressed in place, a batch at a time between requests.
        conversion = await startDocumentConversion(engine, app.log);
      }
      if (flags.watch) {
        const [{ watchFolder }, { describeWatchResult }] = await Promise.all([import('../../watch/folder.js'), import('./watch.js')]);
        const tenant = await resolveTenant(engine, flags['watch-tenant']);
        watcher = await watchFolder({
          engine,
          tenantId: tenant.id,
          dir: resolve(flags.watch),
          follow: flags['watch-follow'],
          onResult: (r) => app.log.info({ watch: r.file, ok: r.ok, encf: r.encf }, describeWatchResult(r)),
          onError: (err) => app.log.error({ err }, 'watch failed'),
        });
        say({ watchDir: resolve(flags.watch), tenantRnc: tenant.rnc }, `watching ${resolve(flags.watch)}/inbox for tenant ${tenant.rnc}`);
      }
    })();
    try {
      await startup;
    } catch (e) {
      // Whatever started is stopped again, so a failed start leaves no thread or port behind.
      await stop(0);
      throw e;
    }
    if (https?.warning) this.warn(https.warning);
    say({ address, dataDir: engine.dataDir }, `ecf serving ${address}/api/v1 (docs at ${address}/docs), data in ${engine.dataDir}`);
    if (sandbox) say({ sandbox: sandbox.url }, `tax authority: the built-in sandbox at ${sandbox.url}${load ? ` (${describeSandboxLoad(load)})` : ''}`);
    // Until close-with-grace ends the process.
    await new Promise<never>(() => {});
  }
}

/** A port that cannot be had, in words that say what to do, as every other refusal of the CLI. */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') {
    return new EngineError('unavailable', 'Serve.PortInUse', `Port ${port} on ${host} is already in use (another ecf serve, or another program): stop it, or pick another port with --port.`);
  }
  if (code === 'EACCES') {
    return new EngineError('unavailable', 'Serve.PortNotAllowed', `This user may not listen on port ${port} (ports under 1024 need privileges): pick a port from 1024 up with --port.`);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new EngineError('validation', 'Serve.HostNotHere', `--host ${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its own addresses.`);
  }
  return err;
}

/** Progress of the in-place conversion in the log: a line when a table starts and ends, and every 30 s. */
const CONVERSION_LOG_MS = 30_000;

async function startDocumentConversion(engine: Engine, log: EngineLog): Promise<RunningConversion> {
  const { startBackgroundConversion } = await import('../../engine/store/document-upkeep.js');
  let table = '';
  let loggedAt = 0;
  const running = await startBackgroundConversion(engine, {
    onProgress: (p) => {
      const now = performance.now();
      if (p.table === table && !p.finished && now - loggedAt < CONVERSION_LOG_MS) return;
      table = p.table;
      loggedAt = now;
      log.info({ conversion: p }, `compressing stored documents: ${p.table} ${p.done}/${p.total} rows, ${p.converted} compressed, ${p.damaged} damaged, ${Math.round(p.rate)} documents/s${p.finished ? ', done' : ''}`);
    },
    onDamaged: (d) => log.error({ document: d.document }, d.message),
    onError: (err) => log.error({ err }, 'compressing stored documents failed; it starts again at the next start of ecf serve (or run ecf store compress)'),
  });
  void running.finished.then((report) => {
    if (report) log.info({ converted: report.converted, damaged: report.damagedCount }, `stored documents compressed: ${report.converted} in this run, ${report.damagedCount} damaged${report.damagedCount ? ' (ecf store verify lists them)' : ''}`);
  });
  return running;
}

/** Room left under --stop-timeout for the store to close and the process to exit. */
const STOP_MARGIN_MS = 3_000;

interface Running {
  readonly app: { close(): Promise<unknown>; log: EngineLog; draining: { begin(): void } };
  readonly engine: Engine;
  readonly work: RunningWork | undefined;
  readonly scheduler: Scheduler | undefined;
  readonly watcher: FolderWatcher | undefined;
  readonly statusWatch: StatusWatch | undefined;
  readonly conversion: RunningConversion | undefined;
  readonly sandbox: { close(): Promise<void> } | undefined;
  readonly budgetMs: number;
  readonly drainMs: number;
}

/**
 * The order of a clean stop: stop claiming new work at once; drain the HTTP
 * server (readiness fails, answers close their connections) for `drainMs`,
 * then stop accepting; let requests and authority calls in flight finish
 * until the budget is spent, then hand back what is still in flight (leases
 * freed, unclear marks kept for the query before resending); close the store
 * last.
 */
async function stopServe({ app, engine, work, scheduler, watcher, statusWatch, conversion, sandbox, budgetMs, drainMs }: Running): Promise<void> {
  const budget = AbortSignal.timeout(Math.max(0, budgetMs));
  const untilBudget = <T>(what: string, p: Promise<T>): Promise<T | void> =>
    Promise.race([
      p.catch((err: unknown) => app.log.error({ err }, `stopping: ${what} failed`)),
      new Promise<void>((resolve) => budget.addEventListener('abort', () => {
        app.log.warn({ budgetMs }, `stopping: ${what} did not end in time`);
        resolve();
      }, { once: true })),
    ]);
  app.draining.begin();
  app.log.info({ drainMs }, `stopping: readiness fails and each answer closes its connection; the listener closes in ${drainMs / 1000} s`);
  const drained = new Promise<void>((resolve) => setTimeout(resolve, drainMs));
  await Promise.all([
    untilBudget('the HTTP server', drained.then(() => app.close())),
    untilBudget('the folder watcher', watcher?.close() ?? Promise.resolve()),
    untilBudget('the job scheduler', scheduler?.stop() ?? Promise.resolve()),
    untilBudget('the authority status watch', statusWatch?.stop() ?? Promise.resolve()),
    untilBudget('the document conversion', conversion?.stop() ?? Promise.resolve()),
    work?.stopWithin(budget).catch((err: unknown) => app.log.error({ err }, 'stopping: handing back the background work failed')),
  ]);
  // After the work: a send in flight to the built-in sandbox needs it until it ends or is handed back.
  if (sandbox) await Promise.race([sandbox.close(), new Promise((r) => setTimeout(r, 1000).unref())]);
  await engine.close();
}

/** An engine logger that writes nothing until it is pointed at the server's logger. */
function forwardingLog(): EngineLog & { to(target: EngineLog): void } {
  let target: EngineLog | undefined;
  return {
    to: (t) => void (target = t),
    info: (fields, message) => target?.info(fields, message),
    warn: (fields, message) => target?.warn(fields, message),
    error: (fields, message) => target?.error(fields, message),
    debug: (fields, message) => target?.debug(fields, message),
  };
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
