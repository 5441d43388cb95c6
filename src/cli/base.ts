import { Command, Flags, type Interfaces } from '@oclif/core';
import { resolveDataDir } from '../engine/data-dir.js';
import { openEngine } from '../engine/engine.js';
import type { Engine } from '../engine/engine-types.js';
import { EngineError, ValidationError, type ErrorKind } from '../engine/errors.js';

/** Exit codes scripts can rely on; one per class of engine error. */
export const EXIT_CODES: Record<ErrorKind | 'unexpected', number> = {
  unexpected: 1,
  validation: 2,
  not_found: 3,
  conflict: 4,
  unauthenticated: 5,
  forbidden: 5,
  too_large: 2,
  unavailable: 6,
  damaged: 1,
};

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof EcfCommand)['baseFlags'] & T['flags']>;

/**
 * Every command: `--data-dir` (else ECF_DATA_DIR, else the platform's data
 * directory) and `--json`, whose output is the value `run` returns. Engine
 * errors print their stable code and exit with the code of their class.
 */
export abstract class EcfCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {
    'data-dir': Flags.string({
      description: 'Data directory (default: $ECF_DATA_DIR, else the platform data directory)',
      helpGroup: 'GLOBAL',
    }),
  };

  #engine: Engine | undefined;

  protected dataDir(flags: { 'data-dir'?: string | undefined }): string {
    return resolveDataDir(flags['data-dir']);
  }

  /** The engine over the data directory, migrated; closed when the command ends. */
  protected async engine(flags: { 'data-dir'?: string | undefined }, options: { backgroundCheckpoints?: boolean } = {}): Promise<Engine> {
    this.#engine ??= await openEngine({ dataDir: this.dataDir(flags), ...options });
    return this.#engine;
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.#engine?.close();
    this.#engine = undefined;
    return super.finally(err);
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (!(err instanceof EngineError)) {
      return super.catch(err);
    }
    const fieldErrors = err instanceof ValidationError ? err.errors : [];
    if (this.jsonEnabled()) {
      this.logJson({ error: { code: err.code, message: err.message, ...(fieldErrors.length && { errors: fieldErrors }) } });
    } else {
      this.logToStderr(`Error [${err.code}]: ${err.message}`);
      for (const e of fieldErrors) this.logToStderr(`  ${e.path}: ${e.message} (${e.code})`);
    }
    return this.exit(EXIT_CODES[err.kind]);
  }
}
