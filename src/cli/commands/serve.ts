import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { buildApp } from '../../http/app.js';
import { startScheduler, type Scheduler } from '../../jobs/scheduler.js';
import { startSandbox } from '../../sandbox/index.js';

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
  };

  async run() {
    const { flags } = await this.parse(Serve);
    const sandbox = flags.sandbox ? await startSandbox({ host: '127.0.0.1', port: 0 }) : undefined;
    // Read by the authority client here and in the job workers, which start after this.
    if (sandbox) process.env.ECF_TAXAUTH_SANDBOX_URL = sandbox.url;
    const engine = await this.engine(flags, { backgroundCheckpoints: true });
    const app = await buildApp({ engine, logger: { level: flags['log-level'] } });
    const address = await app.listen({ host: flags.host, port: flags.port });
    let scheduler: Scheduler | undefined;
    if (flags.jobs) {
      scheduler = await startScheduler({
        dataDir: engine.dataDir,
        onError: (job, error) => app.log.error({ job, err: error }, 'job failed'),
      });
    }
    this.log(`ecf serving ${address}/api/v1 (docs at ${address}/docs), data in ${engine.dataDir}`);
    if (sandbox) this.log(`tax authority: the built-in sandbox at ${sandbox.url}`);

    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await scheduler?.stop();
    await app.close();
    await sandbox?.close();
    return { address, stopped: true };
  }
}
