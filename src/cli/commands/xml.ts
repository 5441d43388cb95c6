import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { ecfXml, findEcf } from '../../engine/ecf/index.js';
import { EngineError } from '../../engine/errors.js';

/** Writes all of `bytes` to stdout and waits until they are handed over. */
const writeStdout = (bytes: Buffer): Promise<void> =>
  new Promise((done, fail) => process.stdout.write(bytes, (err) => (err ? fail(err) : done())));

export default class Xml extends EcfCommand {
  static override description =
    'Write the signed XML of an e-CF, byte for byte as signed, to stdout or a file; --rfce gives the signed summary (RFCE) of a type 32 under DOP 250,000';
  static override examples = [
    '<%= config.bin %> xml E310000000001 > E310000000001.xml',
    '<%= config.bin %> xml 0b9f... --tenant 131234567 -o factura.xml',
    '<%= config.bin %> xml E320000000007 --rfce -o E320000000007-rfce.xml',
  ];
  static override args = {
    id: Args.string({ description: 'e-CF id, or e-NCF (E310000000001)', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    rfce: Flags.boolean({ description: 'The signed summary (RFCE) instead of the e-CF' }),
    output: Flags.string({ char: 'o', description: 'Write to this file instead of stdout', helpValue: 'FILE' }),
  };

  async run() {
    const { args, flags } = await this.parse(Xml);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await findEcf(engine, tenant.id, args.id);
    const { encf, bytes } = await ecfXml(engine, tenant.id, ecf.id, flags.rfce);
    const result = {
      id: ecf.id,
      encf,
      rfce: flags.rfce,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      file: flags.output ?? null,
    };
    if (flags.output !== undefined) {
      try {
        writeFileSync(flags.output, bytes);
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new EngineError('validation', 'Ecf.OutputUnwritable', `Cannot write ${flags.output} (${reason}).`);
      }
      this.log(`${encf}${flags.rfce ? ' (RFCE)' : ''}: ${bytes.length} bytes written to ${flags.output}`);
      return result;
    }
    // With --json the XML travels inside the JSON, as text; otherwise stdout carries the bytes alone.
    if (this.jsonEnabled()) return { ...result, xml: bytes.toString('utf8') };
    await writeStdout(bytes);
    return result;
  }
}
