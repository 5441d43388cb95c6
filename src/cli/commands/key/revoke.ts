import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { revokeApiKey } from '../../../engine/tenants/index.js';

export default class KeyRevoke extends EcfCommand {
  static override description = 'Revoke an API key by its id or visible prefix; revoking twice keeps the first time';
  static override examples = ['<%= config.bin %> key revoke ecf_1a2b3c4d5e6f'];
  static override args = {
    key: Args.string({ description: 'Key id or visible prefix (ecf_xxxxxxxxxxxx)', required: true }),
  };
  static override flags = {};

  async run() {
    const { args, flags } = await this.parse(KeyRevoke);
    const engine = await this.engine(flags);
    const apiKey = await revokeApiKey(engine, args.key);
    this.log(record(apiKey));
    return apiKey;
  }
}
