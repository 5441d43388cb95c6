import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { setContingency } from '../../../engine/submission/contingency-watch.js';

export default class ContingencyOn extends EcfCommand {
  static override description = 'Enter contingency by hand: e-CF keep being signed (marked signedDuringContingency) and wait to be sent; every tenant is told';
  static override examples = ['<%= config.bin %> contingency on'];

  async run() {
    const { flags } = await this.parse(ContingencyOn);
    const engine = await this.engine(flags);
    const state = await setContingency(engine, true);
    this.log(record({ ...state }));
    return state;
  }
}
