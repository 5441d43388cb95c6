import type { Engine } from '../engine-types.js';

/** The shape of one readiness check, apart from the list that runs them: a check in its own file (authority-status.ts) imports this, and readiness.ts imports the check. */
export type ReadinessStatus = 'ok' | 'warn' | 'fail';

export interface ReadinessResult {
  readonly name: string;
  readonly status: ReadinessStatus;
  readonly detail: string;
}

export interface ReadinessCheck {
  /** The check's name; a check per environment names each result `name:environment`. */
  readonly name: string;
  /** Its results; none when it does not apply here (the scheduler in a process without jobs). */
  run(engine: Engine): Promise<readonly ReadinessResult[]>;
}
