import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { statusKeyInfo } from './status-key.js';
import { probeTls, type ProbeOptions, type TlsProbe } from './tls.js';

export interface HostTls extends TlsProbe {
  /** main (seed, token, reception, queries), fc (RFCE) or status. */
  readonly hosts: readonly ('main' | 'fc' | 'status')[];
}

/**
 * What TLS each of the environment's hosts negotiates with the settings in
 * force (`ecf taxauth check`): the main host, the fc host, and the status
 * host when a status key is set. A host serving several roles is shaken
 * hands with once.
 */
export async function tlsChecks(engine: Engine, environment: Environment, options: Partial<Pick<ProbeOptions, 'ca'>> = {}): Promise<HostTls[]> {
  const settings = await engine.taxauth.settings(environment);
  const targets: [string, 'main' | 'fc' | 'status'][] = [
    [settings.baseUrl, 'main'],
    [settings.fcUrl, 'fc'],
  ];
  if ((await statusKeyInfo(engine)).configured) targets.push([(await engine.taxauth.statusHost()).url, 'status']);
  const byOrigin = new Map<string, { url: string; hosts: ('main' | 'fc' | 'status')[] }>();
  for (const [url, role] of targets) {
    const origin = new URL(url).origin;
    const entry = byOrigin.get(origin) ?? { url, hosts: [] };
    entry.hosts.push(role);
    byOrigin.set(origin, entry);
  }
  return Promise.all(
    [...byOrigin.values()].map(async ({ url, hosts }) => ({
      hosts,
      ...(await probeTls(url, settings.tls, { timeoutMs: settings.timeoutMs, ...(options.ca !== undefined && { ca: options.ca }) })),
    })),
  );
}
