import { resolve } from 'node:path';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { LAYOUTS } from '../../engine/representation/index.js';
import { ENVIRONMENTS, type Environment } from '../../engine/schema-types.js';
import { watchFolder, type WatchResult } from '../../watch/folder.js';

/** One result for people: what became of a dropped file. */
export function describeWatchResult(r: WatchResult): string {
  if (r.ok) return `done/${r.file}: ${r.encf} ${r.status}${r.created ? '' : ' (issued before by this file name or its internalNumber; nothing new)'}`;
  const e = r.error!;
  return [`failed/${r.file}: Error [${e.code}]: ${e.message}`, ...(e.errors ?? []).map((f) => `    ${f.path}: ${f.message} (${f.code})`)].join('\n');
}

/** Flags `ecf watch` and `ecf serve --watch` share. */
export const watchFlags = {
  tenant: tenantFlag,
  env: Flags.string({ description: "Environment to issue in (default: the tenant's default environment)", options: [...ENVIRONMENTS] }),
  layout: Flags.string({ description: "PDF layout written beside each e-CF (default: the tenant's representation.default_layout)", options: [...LAYOUTS] }),
  follow: Flags.boolean({ description: "Rewrite each result JSON in done as the authority's verdict arrives, until it is final" }),
  settle: Flags.integer({ description: 'Milliseconds a file must stay unchanged before it is read', default: 1000, min: 0, helpValue: 'MS' }),
};

export default class Watch extends EcfCommand {
  static override description = [
    'Issue every issue payload dropped as a *.json file into DIR/inbox, until stopped (Ctrl-C or SIGTERM).',
    'Each file is claimed by moving it to DIR/processing, issued with the idempotency key watch:<file name>, and moved to DIR/done beside NAME.xml (signed), NAME.pdf and NAME.result.json, or to DIR/failed beside NAME.result.json with every error.',
    'Files left in DIR/processing by a run that stopped are finished first; the key makes sure none is issued twice.',
  ].join('\n');
  static override examples = ['<%= config.bin %> watch /srv/facturas --tenant 131234567', '<%= config.bin %> watch ./drop --once --json'];
  static override args = { dir: Args.string({ description: 'The folder: inbox, processing, done and failed are made in it', required: true }) };
  static override flags = {
    ...watchFlags,
    once: Flags.boolean({ description: 'Finish what is in the inbox and processing now, then exit (exit 1 if any failed)' }),
  };

  async run() {
    const { args, flags } = await this.parse(Watch);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const dir = resolve(args.dir);
    const results: WatchResult[] = [];
    const live = process.stderr.isTTY === true && !this.jsonEnabled();
    const summary = () => {
      if (live) process.stderr.write(`\r${watcher.counts.done} done, ${watcher.counts.failed} failed, ${watcher.counts.pending} waiting\x1b[K`);
    };
    const watcher = await watchFolder({
      engine,
      tenantId: tenant.id,
      dir,
      ...(flags.env && { environment: flags.env as Environment }),
      ...(flags.layout && { layout: flags.layout }),
      follow: flags.follow,
      settleMs: flags.settle,
      onResult: (r) => {
        results.push(r);
        if (live) process.stderr.write('\r\x1b[K');
        this.log(describeWatchResult(r));
        summary();
      },
      onError: (err) => {
        if (live) process.stderr.write('\r\x1b[K');
        this.logToStderr(`watch: ${err instanceof Error ? err.message : String(err)}`);
      },
    });
    if (!flags.once) this.logToStderr(`ecf watching ${dir}/inbox for tenant ${tenant.rnc} (Ctrl-C to stop)`);
    summary();
    if (flags.once) {
      await watcher.ready;
    } else {
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
    }
    await watcher.close();
    if (live) process.stderr.write('\n');
    const failed = results.filter((r) => !r.ok).length;
    if (flags.once && failed > 0) process.exitCode = 1;
    return { dir, done: results.length - failed, failed, results };
  }
}
