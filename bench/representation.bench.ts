// Printed representation (PDF) speed, in pages per second for each layout (target >= 100/s on
// letter), on the e-CF 31 of 12 lines the signing bench uses, issued by the real pipeline:
//   render  the stored signed XML read into the printed content, drawn, the PDF's bytes finished;
//   engine  ecfRepresentation as the API and the CLI call it: the store read, the tenant's
//           default layout when none is given, then the same render.
// Then a 300-line invoice on letter (it paginates, header and QR on every page). No pass/fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../src/engine/engine.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { ecfXml } from '../src/engine/ecf/queries.js';
import { LAYOUTS } from '../src/engine/settings/layouts.js';
import { readSignedEcf } from '../src/engine/representation/reader.js';
import { renderRepresentation } from '../src/engine/representation/render.js';
import { ecfRepresentation } from '../src/engine/representation/representation.js';
import { payload } from './documents.js';
import { rate, rateAsync } from './measure.js';
import { seedBenchIssuer } from './seed.js';

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-representation-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const engine = await openEngine({ dataDir });
const { tenantId } = await seedBenchIssuer(engine);

async function issued(body: unknown, key: string) {
  const { ecf } = await issueEcf(engine, tenantId, { idempotencyKey: key, payload: body });
  const { bytes } = await ecfXml(engine, tenantId, ecf.id);
  return { ecf, bytes, facts: { qrUrl: ecf.qrUrl, signedDuringContingency: false, signedAt: new Date(ecf.signedAt) } };
}

const invoice = await issued(payload, 'bench-12');
const fmt = (n: number) => n.toFixed(0).padStart(6);
console.log(`document: e-CF 31, 12 lines, ${invoice.bytes.length} bytes of signed XML`);
for (const layout of LAYOUTS) {
  const pages = renderRepresentation(readSignedEcf(invoice.bytes), invoice.facts, layout).pages;
  const render = rate(() => renderRepresentation(readSignedEcf(invoice.bytes), invoice.facts, layout)) * pages;
  const whole = (await rateAsync(() => ecfRepresentation(engine, tenantId, invoice.ecf.id, { layout }))) * pages;
  const target = layout === 'letter' ? '   (target >= 100)' : '';
  console.log(`${layout.padEnd(6)} render ${fmt(render)} pages/s   engine ${fmt(whole)} pages/s${target}`);
}

const long = await issued(
  {
    ...payload,
    lines: Array.from({ length: 300 }, (_, i) => ({ name: `Artículo ${i + 1}: tornillos & tuercas ñ`, quantity: 1 + (i % 4), unitPrice: `${(i % 90) + 10}.50` })),
  },
  'bench-300',
);
const longPages = renderRepresentation(readSignedEcf(long.bytes), long.facts, 'letter').pages;
const longRate = rate(() => renderRepresentation(readSignedEcf(long.bytes), long.facts, 'letter'), 3, 1000);
console.log(`300-line e-CF 31 on letter: ${longPages} pages, ${fmt(longRate * longPages)} pages/s (${(1000 / longRate).toFixed(0)} ms per document)`);
await engine.close();
