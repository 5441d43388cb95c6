import type { CertificationMode } from './certification/mode.js';
import type { LoadGate, SandboxDelay } from './load.js';
import type { State } from './state.js';
import type { createStatusServices } from './status-services.js';
import type { TaxpayerIdentity } from './taxpayer.js';
import type { SandboxControl, SandboxTaxpayer } from './types.js';

/**
 * What every route plugin of the sandbox works with, handed to each as its
 * `sandbox` option (never found through a module variable), so one process
 * can run several sandboxes side by side.
 */
export interface SandboxContext {
  /** Replaced whole by a reset: read it at the moment of use. */
  state: State;
  readonly now: () => Date;
  /** How many of the newest e-CF and RFCE keep their XML (SandboxOptions.keepXml). */
  readonly keepXml: number;
  readonly gate: LoadGate;
  /** How a request waits its latency. */
  readonly wait: SandboxDelay;
  /** Waits in progress, ended at once when the sandbox closes so closing never waits for them. */
  readonly hangs: Set<() => void>;
  /** The playing taxpayer's key and certificate, made on first use (a key pair costs time). */
  readonly identity: () => TaxpayerIdentity;
  readonly certification: CertificationMode;
  readonly status: ReturnType<typeof createStatusServices>;
  readonly taxpayer: SandboxTaxpayer;
  readonly control: SandboxControl;
}

/** Options every route plugin receives; the authority's services also get their environment. */
export interface SandboxPluginOptions {
  readonly sandbox: SandboxContext;
}
