import type { SandboxContext } from './context.js';
import { checkedLoad } from './load.js';
import { freshState, setUnreachable } from './state.js';
import type { SandboxControl } from './types.js';

/**
 * The sandbox's control in process (SandboxControl): what tests and
 * `ecf serve --sandbox` use to script outcomes and faults, to read what was
 * received, and to reset. The HTTP control (control-routes.ts) calls it too.
 */
export function createControl(sandbox: Omit<SandboxContext, 'control'>): SandboxControl {
  const { now, gate, certification, status, taxpayer } = sandbox;
  return {
    script(script) {
      const { state } = sandbox;
      if (script.encf) {
        const queue = state.perEncf.get(script.encf) ?? [];
        queue.push(...script.outcomes);
        state.perEncf.set(script.encf, queue);
      } else {
        state.next.push(...script.outcomes);
      }
    },
    clearScripts() {
      sandbox.state.next = [];
      sandbox.state.perEncf.clear();
    },
    setUnreachable(on, forMs) {
      setUnreachable(sandbox.state, on, forMs);
    },
    revokeTokens() {
      let n = 0;
      const t = now().getTime();
      for (const record of sandbox.state.tokens.values()) {
        if (!record.revoked && t < record.expiresAt) n++;
        record.revoked = true;
      }
      return n;
    },
    issuedTokens: () => [...sandbox.state.tokens.keys()],
    submissions(filter = {}) {
      return sandbox.state.submissions
        .filter((s) => (!filter.encf || s.encf === filter.encf) && (!filter.environment || s.environment === filter.environment))
        .map((s) => ({ ...s }));
    },
    annulments(filter = {}) {
      return sandbox.state.annulments.filter((a) => !filter.environment || a.environment === filter.environment).map((a) => ({ ...a }));
    },
    stats: () => ({ ...sandbox.state.stats, ...gate.stats }),
    setLoad(change) {
      gate.load = checkedLoad(gate.load, change, 'load');
      return gate.load;
    },
    load: () => gate.load,
    inFlight: () => gate.inFlight,
    reset() {
      sandbox.state = freshState();
      certification.forget();
      status.control.reset();
      gate.resetStats();
    },
    now,
    taxpayer,
    registerTaxpayer(entry) {
      sandbox.state.directory.set(entry.rnc, entry);
    },
    approvals: () => [...sandbox.state.authorityApprovals],
    failApprovals(where, n) {
      sandbox.state.failApprovals[where] = n;
    },
    certification,
    status: status.control,
  };
}
