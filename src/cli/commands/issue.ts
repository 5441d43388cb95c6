import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { xmlCommand } from '../ecf-render.js';
import { progressBar } from '../progress.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import type { EcfView } from '../../engine/ecf/index.js';
import { issueAndWait } from '../../engine/ecf/issuing.js';
import type { Engine } from '../../engine/engine-types.js';
import { EngineError, ValidationError, type FieldError } from '../../engine/errors.js';
import { ENVIRONMENTS, type Environment } from '../../engine/schema-types.js';

export interface IssueFileResult {
  readonly file: string;
  readonly ok: boolean;
  readonly ecf?: EcfView;
  /** false when this file (or its internalNumber) had already issued the e-CF. */
  readonly created?: boolean;
  readonly error?: { readonly code: string; readonly message: string; readonly errors?: readonly FieldError[] };
}

/** Progress is drawn (on a terminal) only for more files than this. */
const PROGRESS_ABOVE = 3;

/** The failure of one file, as the report shows it. */
function failure(err: unknown): NonNullable<IssueFileResult['error']> {
  if (err instanceof EngineError) {
    const errors = err instanceof ValidationError ? err.errors : [];
    return { code: err.code, message: err.message, ...(errors.length > 0 && { errors }) };
  }
  return { code: 'Issue.Unexpected', message: err instanceof Error ? err.message : String(err) };
}

export default class Issue extends EcfCommand {
  static override description = [
    'Issue an e-CF from each JSON file (an issue payload, as POST /api/v1/ecf takes): validate, number, sign and store it, straight on the data directory.',
    'No server is needed, and it is safe while one runs.',
    '',
    'Each file is issued with the idempotency key file:<SHA-256 of its bytes>, so running the same file again returns the e-CF it issued instead of a second one; with a single file, --idempotency-key replaces that key.',
    'Every file is tried and reported, whatever happens to the others; the exit code is 1 when any failed.',
    'The signed XML stays in the store: get it with `ecf xml ID`.',
  ].join('\n');
  static override usage = 'issue FILE... [--tenant <value>] [--env test|cert|production] [--idempotency-key KEY]';
  static override examples = [
    '<%= config.bin %> issue examples/invoice-31.json',
    '<%= config.bin %> issue ventas/*.json --tenant 131234567 --json',
    '<%= config.bin %> issue pedido-1042.json --idempotency-key pedido-1042',
  ];
  static override strict = false;
  static override args = {
    file: Args.string({ description: 'JSON files with one issue payload each', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ description: "Environment to issue in (default: the tenant's default environment)", options: [...ENVIRONMENTS] }),
    'idempotency-key': Flags.string({
      description: 'Idempotency key of the e-CF (one file only); default file:<SHA-256 of the file>',
      helpValue: 'KEY',
    }),
  };

  async run() {
    const { argv, flags } = await this.parse(Issue);
    const files = argv as string[];
    const explicitKey = flags['idempotency-key'];
    if (explicitKey !== undefined && files.length > 1) {
      throw new EngineError(
        'validation',
        'Issue.KeyForOneFile',
        `--idempotency-key names one e-CF, but ${files.length} files were given; leave it out to key each file by its contents.`,
      );
    }
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const environment = flags.env as Environment | undefined;

    const progress = progressBar(files.length, 'Issuing', files.length > PROGRESS_ABOVE);
    const results: IssueFileResult[] = [];
    progress.update(0);
    for (const file of files) {
      const result = await this.issueFile(engine, tenant.id, file, explicitKey, environment);
      results.push(result);
      progress.clear();
      this.log(this.describe(result, flags.tenant));
      progress.update(results.length);
    }
    progress.finish();

    const issued = results.filter((r) => r.ok).length;
    const failed = results.length - issued;
    if (files.length > 1) this.log(`${issued} issued, ${failed} failed`);
    // Exit 1 once the report is printed (as JSON too): a failed file is part of the answer.
    if (failed > 0) process.exitCode = 1;
    return { results, issued, failed };
  }

  private async issueFile(
    engine: Engine,
    tenantId: string,
    file: string,
    explicitKey: string | undefined,
    environment: Environment | undefined,
  ): Promise<IssueFileResult> {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { file, ok: false, error: { code: 'Issue.FileUnreadable', message: `Cannot read ${file} (${reason}).` } };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
    } catch (err) {
      return { file, ok: false, error: { code: 'Issue.NotJson', message: `${file} is not JSON: ${(err as Error).message}` } };
    }
    const idempotencyKey = explicitKey ?? `file:${createHash('sha256').update(bytes).digest('hex')}`;
    try {
      const { ecf, created } = await issueAndWait(engine, tenantId, { idempotencyKey, payload, ...(environment && { environment }) });
      return { file, ok: true, ecf, created };
    } catch (err) {
      return { file, ok: false, error: failure(err) };
    }
  }

  /** One file's outcome for people: the e-CF and where to get its XML, or the error with each field error on its own line. */
  private describe(r: IssueFileResult, tenant: string | undefined): string {
    const name = r.file;
    if (r.ok && r.ecf) {
      const e = r.ecf;
      return [
        `${name}: ${e.encf} ${e.status}${r.created ? '' : ' (issued before by this file or its internalNumber; nothing new)'}`,
        `  security code  ${e.securityCode}`,
        `  QR             ${e.qrUrl}`,
        `  XML            ${xmlCommand(e, tenant)}`,
      ].join('\n');
    }
    const error = r.error!;
    return [
      `${name}: failed`,
      `  Error [${error.code}]: ${error.message}`,
      ...(error.errors ?? []).map((f) => `    ${f.path}: ${f.message} (${f.code})`),
    ].join('\n');
  }
}
