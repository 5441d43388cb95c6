import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { progressBar } from '../../progress.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { consumoFileName, runSimulation, type SimulationReport } from '../../../engine/certification/runs.js';
import { ecfXml } from '../../../engine/ecf/index.js';
import type { Engine } from '../../../engine/engine-types.js';
import { EngineError } from '../../../engine/errors.js';

export default class CertifySimulate extends EcfCommand {
  static override description = [
    'Paso 4 (Pruebas de Simulación e-CF): issue the portal\'s quota of e-CF per type in the cert environment through the normal issuing path, and wait for the verdicts.',
    'Quota: 31: 4; 32 >= RD$250,000: 2; 32 < RD$250,000 (RFCE): 4; 33: 1; 34: 2; 41, 43, 44, 45, 46, 47: 2 each (25 in all).',
    'Payloads come from --payloads (JSON files as POST /api/v1/ecf takes, sorted into slots by type and, for 32, by amount) and, for slots the folder has none for, from the built-in examples.',
    'Notes 33 and 34 modify e-CF of this simulation the authority accepted (the type named by reference.modifiedNcf, e.g. "E31"; 31 when none).',
    'New e-NCFs: a cert range per type is added when missing, starting above every number the Paso 2 workbook and earlier runs used.',
    'Run it again at any time: it issues only what is missing. An e-CF the authority rejected does not count, and the portal restarts the simulation on a rejection: no notes are sent after one, and the next run starts a new round that issues the whole quota again, with new e-NCFs (never reused).',
    'Exit code 0 when the whole quota is accepted, 1 otherwise (the report says what is missing).',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> certify simulate',
    '<%= config.bin %> certify simulate --payloads ./simulacion --consumo-out ./consumo-paso4',
    '<%= config.bin %> certify simulate --tenant 131234567 --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    payloads: Flags.string({ description: 'Folder of JSON issue payloads to take the simulation e-CF from (default: the built-in examples)', helpValue: 'DIR' }),
    'consumo-out': Flags.string({
      description: 'Also write the full XML of each accepted consumo invoice under RD$250,000 here ({RNC}{e-NCF}.xml), for the portal\'s upload box',
      helpValue: 'DIR',
    }),
    wait: Flags.integer({ description: 'Seconds to wait for each e-CF\'s verdict (default 300)', min: 1, helpValue: 'SECONDS' }),
    restart: Flags.boolean({
      description: 'Start a new round in which nothing issued before counts (only when the portal restarted the simulation counters); e-NCFs are never reused',
      default: false,
    }),
  };

  async run() {
    const { flags } = await this.parse(CertifySimulate);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const progress = progressBar(25, 'Paso 4 accepted', !this.jsonEnabled());
    progress.update(0);
    const report = await runSimulation(engine, tenant.id, {
      ...(flags.payloads && { payloadDir: flags.payloads }),
      ...(flags.wait && { waitSeconds: flags.wait }),
      restart: flags.restart,
      onProgress: ({ accepted, event }) => {
        progress.clear();
        this.log(event);
        progress.update(accepted);
      },
    });
    progress.finish();
    // After a restart the next round issues other consumo invoices: those are the ones to upload.
    const consumoFiles = flags['consumo-out'] && !report.restartsNext ? await this.writeConsumo(engine, tenant.id, tenant.rnc, report, flags['consumo-out']) : [];
    this.show(report, consumoFiles);
    if (!report.complete) process.exitCode = 1;
    return { ...report, consumoFiles };
  }

  private async writeConsumo(engine: Engine, tenantId: string, rnc: string, report: SimulationReport, dir: string): Promise<string[]> {
    const out = resolve(dir);
    try {
      mkdirSync(out, { recursive: true });
      const files: string[] = [];
      for (const c of report.consumo) {
        const { bytes } = await ecfXml(engine, tenantId, c.id);
        const file = join(out, consumoFileName(rnc, c.encf));
        writeFileSync(file, bytes);
        files.push(file);
      }
      return files;
    } catch (err) {
      if (err instanceof EngineError) throw err;
      throw new EngineError('validation', 'Certification.OutputUnwritable', `Cannot write to ${out} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
    }
  }

  private show(r: SimulationReport, consumoFiles: readonly string[]): void {
    if (r.rangesAdded.length) {
      this.log(`cert ranges added: ${r.rangesAdded.map((x) => `${x.type} ${x.rangeFrom}–${x.rangeTo}`).join(', ')}`);
    }
    const rows = r.slots.map((s) => ({
      slot: s.label,
      accepted: `${s.accepted}/${s.quota}`,
      from: s.source,
      'e-ncf': s.documents.map((d) => `${d.encf} ${d.status}${d.modifies ? ` (modifies ${d.modifies})` : ''}`).join(', '),
    }));
    this.log(table(rows, ['slot', 'accepted', 'from', 'e-ncf']));
    for (const d of r.rejected) {
      this.log(`rejected (does not count): ${d.encf} [${d.slot}] ${(d.messages ?? []).map((m) => `${m.code} ${m.value}`).join('; ')}`);
    }
    for (const d of r.unsettled) this.log(`no final verdict: ${d.encf} ${d.status}; settle it with \`ecf retry ${d.id}\``);
    for (const f of consumoFiles) this.log(`written ${f}`);
    this.log(`Round ${r.round}, ${r.issuedNow} issued now. ${r.note}`);
  }
}
