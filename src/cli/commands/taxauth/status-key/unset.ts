import { EcfCommand } from '../../../base.js';

export default class TaxauthStatusKeyUnset extends EcfCommand {
  static override description = "Forget the status services' API key (and what was read with it): status and maintenance windows are no longer read";
  static override examples = ['<%= config.bin %> taxauth status-key unset'];

  async run() {
    const { flags } = await this.parse(TaxauthStatusKeyUnset);
    const engine = await this.engine(flags);
    const { unsetStatusKey } = await import('../../../../engine/taxauth/index.js');
    const removed = await unsetStatusKey(engine);
    this.log(removed ? 'The status API key was removed.' : 'No status API key was set.');
    return { removed };
  }
}
