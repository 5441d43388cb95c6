import { Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { describeSandboxLoad, sandboxLoadFlags, sandboxLoadFromFlags } from '../sandbox-flags.js';

export default class Sandbox extends EcfCommand {
  static override description =
    "Run the built-in stand-in for the tax authority (seed, token, reception, RFCE, status queries; checks schemas and signatures) until stopped. Script outcomes, latency and limits with POST /_sandbox/script. Its certecf environment has a certification mode (/_sandbox/certification/:rnc/…; see ecf certify workbook).";
  static override examples = [
    '<%= config.bin %> sandbox --port 8788',
    '<%= config.bin %> sandbox --latency 300 --jitter 100 --max-in-flight 64 --overload-status mixed',
  ];
  static override flags = {
    host: Flags.string({ default: '127.0.0.1' }),
    port: Flags.integer({ default: 8788, min: 0, max: 65535 }),
    ...sandboxLoadFlags,
  };

  async run() {
    const { flags } = await this.parse(Sandbox);
    const load = sandboxLoadFromFlags(flags);
    // Loaded here, not at the top: every command's module is loaded on each start of `ecf`.
    const { startSandbox } = await import('../../sandbox/index.js');
    const sandbox = await startSandbox({ host: flags.host, port: flags.port, ...(load && { load }) });
    this.log(`tax authority sandbox at ${sandbox.url} (environments ${sandbox.url}/testecf, /certecf, /ecf)`);
    if (load) this.log(`load: ${describeSandboxLoad(load)}`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await sandbox.close();
    return { url: sandbox.url, load: sandbox.control.load(), stopped: true };
  }
}
