import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import type { Layout } from '../settings/layouts.js';
import { ecfRepresentation } from '../representation/representation.js';
import { recordPaso, requireCertification } from './state.js';
import { acceptedSimulationDocuments } from './simulation.js';
import type { SlotId } from './simulation-slots.js';

/**
 * Pasos 5–6, "Pruebas de Simulación Representación Impresa"
 * (CERTIFICATION.md §3): the printed representation of one accepted
 * simulation e-CF per file slot of the portal, drawn by the same renderer as
 * `ecf pdf` from the stored signed XML (so the data and the QR are exactly
 * those sent), named so the person can tell which slot each file goes in,
 * and at most 10 MB in all.
 */

/** The portal's eleven slots, in the order it shows them, with a file-name part each. */
export const PRINT_SLOTS: readonly { readonly slot: SlotId; readonly label: string; readonly name: string }[] = [
  { slot: '31', label: '31', name: 'tipo-31' },
  { slot: '33', label: '33', name: 'tipo-33' },
  { slot: '34', label: '34', name: 'tipo-34' },
  { slot: '41', label: '41', name: 'tipo-41' },
  { slot: '43', label: '43', name: 'tipo-43' },
  { slot: '44', label: '44', name: 'tipo-44' },
  { slot: '45', label: '45', name: 'tipo-45' },
  { slot: '46', label: '46', name: 'tipo-46' },
  { slot: '47', label: '47', name: 'tipo-47' },
  { slot: '32', label: '32 >=RD$250mil', name: 'tipo-32-mayor-o-igual-250mil' },
  { slot: '32-rfce', label: '32 < RD$250mil', name: 'tipo-32-menor-250mil' },
];

/**
 * "10 MB" on the portal's screen, read as the smaller 10,000,000 bytes
 * (not 10 × 2^20): a total that fits this fits either reading.
 */
export const PRINT_TOTAL_LIMIT_BYTES = 10_000_000;

/** `letter`, or `roll` for the 80 mm receipt (the representation's `pos` layout). */
export type PrintLayout = 'letter' | 'roll';
const LAYOUT_OF: Record<PrintLayout, Layout> = { letter: 'letter', roll: 'pos' };

export interface PrintOptions {
  readonly outDir: string;
  readonly layout?: PrintLayout;
  /** The portal's limit on the sum of the files (tests lower it). */
  readonly maxTotalBytes?: number;
}

export interface PrintedSlot {
  readonly slot: SlotId;
  readonly label: string;
  readonly ecfId: string;
  readonly encf: string;
  readonly file: string;
  readonly pages: number;
  readonly bytes: number;
}

export interface PrintReport {
  readonly outDir: string;
  readonly layout: PrintLayout;
  readonly files: readonly PrintedSlot[];
  /** Slots without an accepted simulation e-CF: no file for them. */
  readonly missing: readonly { readonly slot: SlotId; readonly label: string }[];
  readonly totalBytes: number;
  readonly limitBytes: number;
  readonly complete: boolean;
  readonly note: string;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

export async function renderPrintSlots(engine: Engine, tenantId: string, options: PrintOptions): Promise<PrintReport> {
  await requireCertification(engine, tenantId);
  const layout = options.layout ?? 'letter';
  if (!(layout in LAYOUT_OF)) throw new EngineError('validation', 'Certification.PrintLayout', `layout must be letter or roll, not ${String(layout)}.`);
  const limit = options.maxTotalBytes ?? PRINT_TOTAL_LIMIT_BYTES;
  const outDir = resolve(options.outDir);
  const accepted = await acceptedSimulationDocuments(engine, tenantId);

  const rendered: (PrintedSlot & { pdf: Buffer })[] = [];
  const missing: { slot: SlotId; label: string }[] = [];
  for (const [i, s] of PRINT_SLOTS.entries()) {
    const ecf = accepted.get(s.slot)?.[0];
    if (!ecf) {
      missing.push({ slot: s.slot, label: s.label });
      continue;
    }
    const r = await ecfRepresentation(engine, tenantId, ecf.id, { layout: LAYOUT_OF[layout] });
    const file = `${String(i + 1).padStart(2, '0')}_${s.name}_${ecf.encf}.pdf`;
    rendered.push({ slot: s.slot, label: s.label, ecfId: ecf.id, encf: ecf.encf, file, pages: r.pages, bytes: r.pdf.length, pdf: r.pdf });
  }
  const totalBytes = rendered.reduce((n, r) => n + r.bytes, 0);
  const files = rendered.map(({ pdf: _pdf, ...f }) => f);

  if (totalBytes > limit) {
    const sizes = files.map((f) => `${f.label}: ${f.bytes} bytes`).join('; ');
    const note = `The ${files.length} PDFs add up to ${totalBytes} bytes (${mb(totalBytes)}), over the portal's ${limit} bytes (${mb(limit)}); nothing was written. Sizes: ${sizes}.`;
    await recordPaso(engine, tenantId, 5, { state: 'failed', note, detail: { files: files.map((f) => f.file), totalBytes, limitBytes: limit } });
    throw new EngineError('too_large', 'Certification.PrintTooLarge', `${note} Try --layout roll, which draws smaller pages.`);
  }

  mkdirSync(outDir, { recursive: true });
  for (const r of rendered) writeFileSync(join(outDir, r.file), r.pdf);
  const complete = missing.length === 0;
  const note = complete
    ? `11 PDFs (${mb(totalBytes)}) in ${outDir}: upload each in the slot its name says and press "ENVIAR ARCHIVOS"; then wait for "Representación Impresa Aprobada" (Paso 6).`
    : `No accepted simulation e-CF for ${missing.map((m) => `"${m.label}"`).join(', ')}: run \`ecf certify simulate\` until they are accepted, then print again.`;
  await recordPaso(engine, tenantId, 5, {
    state: complete ? 'done' : 'in_progress',
    note,
    detail: { outDir, layout, files: files.map((f) => f.file), totalBytes, limitBytes: limit, missing: missing.map((m) => m.label) },
  });
  return { outDir, layout, files, missing, totalBytes, limitBytes: limit, complete, note };
}
