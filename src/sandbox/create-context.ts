import { CertificationMode } from './certification/mode.js';
import { certificationSources } from './certification/sources.js';
import type { SandboxContext } from './context.js';
import { createControl } from './control.js';
import { LoadGate, NO_LOAD, checkedLoad, type SandboxDelay } from './load.js';
import { createPlayingTaxpayer } from './playing-taxpayer.js';
import { freshState } from './state.js';
import { createStatusServices } from './status-services.js';
import { makeTaxpayerIdentity, type TaxpayerIdentity } from './taxpayer.js';
import type { SandboxOptions } from './types.js';

const DEFAULT_KEEP_XML = 1_000;

export function createContext(options: SandboxOptions): SandboxContext {
  const now = (): Date => options.clock?.now() ?? options.now?.() ?? new Date();
  const hangs = new Set<() => void>();
  /** The default wait: a timer that the sandbox's close ends early, so closing never waits for latencies. */
  const wait: SandboxDelay =
    options.delay ??
    ((ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          hangs.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        hangs.add(done);
      }));
  let identity: TaxpayerIdentity | undefined;
  const base = {
    state: freshState(),
    now,
    keepXml: Math.max(0, options.keepXml ?? DEFAULT_KEEP_XML),
    gate: new LoadGate(options.load ? checkedLoad(NO_LOAD, options.load, 'load') : NO_LOAD, options.random),
    wait,
    hangs,
    identity: (): TaxpayerIdentity => (identity ??= makeTaxpayerIdentity(now())),
    certification: new CertificationMode(options.certification ?? certificationSources, now),
    status: createStatusServices(now, options.statusApiKey),
  };
  // The taxpayer and the control are views on the same context, so they are made from it and then joined to it.
  const context: { -readonly [K in keyof SandboxContext]: SandboxContext[K] } = { ...base, taxpayer: undefined as never, control: undefined as never };
  context.taxpayer = createPlayingTaxpayer(context);
  context.control = createControl(context);
  return context;
}
