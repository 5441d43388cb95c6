import { Flags } from '@oclif/core';
import { EcfCommand } from '../../../base.js';
import { record } from '../../../render.js';

export default class TaxauthStatusKeySet extends EcfCommand {
  static override description =
    "Store the API key of the authority's status services (service status, maintenance windows): read from stdin when piped or with --stdin, else asked without echo; kept in the secret store, never in clear";
  static override examples = ['<%= config.bin %> taxauth status-key set', 'printf %s "$KEY" | <%= config.bin %> taxauth status-key set --stdin'];
  static override flags = {
    stdin: Flags.boolean({ description: 'Read the key from stdin (also the default when stdin is not a terminal)' }),
  };

  async run() {
    const { flags } = await this.parse(TaxauthStatusKeySet);
    const { askPassword, readStdinLine, stdinIsTty } = await import('../../../prompts.js');
    const key = flags.stdin || !stdinIsTty() ? await readStdinLine() : await askPassword('Status services API key:');
    const engine = await this.engine(flags);
    const { setStatusKey } = await import('../../../../engine/taxauth/index.js');
    const info = await setStatusKey(engine, key);
    this.log(record({ ...info, next: 'ecf taxauth status reads the status host now' }));
    return info;
  }
}
