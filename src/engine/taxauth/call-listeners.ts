/**
 * The port the tax authority's client reports its calls through, for the
 * metrics of calls in flight and their latency. The engine does not know who
 * listens (the HTTP app's Prometheus registry, one per app); with no listener
 * a call costs one empty loop. The client wraps each HTTP call:
 *
 *     return observeTaxauthCall(op, () => this.#send(op, options));
 *
 * Outcomes are bounded: `ok`, or the TaxauthError kind (http, timeout,
 * network, protocol…), or `error` for anything else.
 */
export interface TaxauthCallListener {
  /** A call starts; the function returned is called once when it ends. */
  started(operation: string): (outcome: string) => void;
}

const listeners = new Set<TaxauthCallListener>();

/** Listens to every call of this process's clients until the function returned is called. */
export function listenToTaxauthCalls(listener: TaxauthCallListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

function outcomeOf(error: unknown): string {
  const kind = (error as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && /^[a-z_]{1,20}$/.test(kind) ? kind : 'error';
}

/** Runs one call to the authority, telling every listener when it starts and how it ends. */
export async function observeTaxauthCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  if (listeners.size === 0) return call();
  const ends = [...listeners].map((l) => l.started(operation));
  const end = (outcome: string) => {
    for (const e of ends) e(outcome);
  };
  try {
    const result = await call();
    end('ok');
    return result;
  } catch (err) {
    end(outcomeOf(err));
    throw err;
  }
}
