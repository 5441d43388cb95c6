// A child of zip-memory.test.ts: many distinct entries through the ZIP writer ('write'), or every
// entry of that archive read back as `ecf export verify` reads it ('read'), in a process of its
// own so that its peak RSS is its own. Prints {peakRssMiB} as JSON.
import { createHash, randomBytes } from 'node:crypto';
import { ZipReader } from '../../../src/engine/export/zip-reader.js';
import { ZipWriter } from '../../../src/engine/export/zip-writer.js';

const [step, file, count] = process.argv.slice(2) as [string, string, string];
const n = Number(count);
if (step === 'write') {
  const zip = new ZipWriter(file, new Date('2026-10-31T12:00:00Z'));
  // Each entry its own bytes (about 8 KB, compressible as signed XML is), as an export's documents are.
  for (let i = 0; i < n; i++) zip.addBuffer(`issued/131234567/E31${String(i).padStart(10, '0')}.xml`, Buffer.from(`<ECF>${randomBytes(3000).toString('hex')}</ECF>`));
  await zip.finish();
} else {
  const zip = new ZipReader(file);
  let entries = 0;
  for (const entry of zip.entries()) {
    createHash('sha256').update(zip.readKept(entry)).digest();
    entries++;
  }
  zip.close();
  if (entries !== n) throw new Error(`read ${entries} entries, not ${n}`);
}
console.log(JSON.stringify({ peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
