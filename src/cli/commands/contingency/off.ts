import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { setContingency } from '../../../engine/submission/contingency-watch.js';

export default class ContingencyOff extends EcfCommand {
  static override description = 'Leave contingency: queued submissions drain; every tenant is told';
  static override examples = ['<%= config.bin %> contingency off'];

  async run() {
    const { flags } = await this.parse(ContingencyOff);
    const engine = await this.engine(flags);
    const state = await setContingency(engine, false);
    this.log(record({ ...state }));
    return state;
  }
}
