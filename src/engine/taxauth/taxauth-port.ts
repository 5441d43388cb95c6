import type { Engine, TaxauthPort } from '../engine-types.js';
import { TaxauthClient } from './client.js';
import { taxauthAgent } from './agent.js';
import { readClientSettings, readStatusHostSettings } from './environments.js';
import { defaultTokenCache } from './token-cache.js';

/**
 * `engine.taxauth` as openEngine makes it. `sandboxUrl` is read once, when
 * the engine opens (`ecf serve --sandbox` sets it before): it points every
 * environment of the process at the built-in sandbox. Nothing is cached
 * here: the settings are read on every call, as before the port.
 */
export function taxauthPort(engine: Engine, sandboxUrl: string | undefined): TaxauthPort {
  return {
    async client(environment) {
      const settings = await readClientSettings(engine, environment, sandboxUrl);
      return new TaxauthClient({ ...settings, dispatcher: taxauthAgent(settings.tls) });
    },
    settings: (environment) => readClientSettings(engine, environment, sandboxUrl),
    statusHost: () => readStatusHostSettings(engine, sandboxUrl),
    withToken: (tenantId, environment, fn) => defaultTokenCache.withToken(engine, tenantId, environment, fn),
  };
}
