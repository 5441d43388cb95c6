// Trains a zstd dictionary for the store's documents (docs/store.md, "Compressed documents").
// Development time only; needs the `zstd` command (Debian package zstd).
//
//   node_modules/.bin/node --import tsx scripts/train-dictionary.ts --id 3 [--size 32768] [--per-issuer 500] [--generated 20]
//
// --per-issuer: realistic e-CF per issuer (their RFCE and the answers follow from it); --generated:
// e-CF 41 and 43-47 per type and issuer from the property tests' generators (default per-issuer / 25),
// whose free texts are random characters at the schema's limits: a few teach the dictionary those
// types' structure, many fill it with random text no document repeats.
//
// Generates documents of every kind the store keeps from several issuers (bench/corpus/kinds.ts),
// cuts the certificate text out as the codec does, trains on them and writes dictionaries/ecf-<id>.zdict,
// then measures it on documents of other issuers, which it never saw. A shipped dictionary is never
// changed or removed: the script refuses an id whose file exists. Add the new one to
// SHIPPED_DICTIONARIES (src/engine/store/documents/dictionaries.ts) and pin it in its test.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusIssuer, generator } from '../bench/corpus/realistic.js';
import { answers, generatedTypes, realisticTypes, type KindDocument } from '../bench/corpus/kinds.js';
import { cutCertificate } from '../src/engine/store/documents/certificate-text.js';
import { compressFrameSync } from '../src/engine/store/documents/codec.js';
import { SHIPPED_DICTIONARIES, dictionaryBytes } from '../src/engine/store/documents/dictionaries.js';
import { documentPool } from '../bench/corpus/pool.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const id = flag('id', NaN);
const size = flag('size', 32_768);
const perIssuer = flag('per-issuer', 500);
const generated = flag('generated', Math.ceil(perIssuer / 25));
if (!Number.isInteger(id) || id < 1 || id > 255) throw new Error('--id N (1..255): the new dictionary id');
const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dictionaries', `ecf-${id}.zdict`);
if (existsSync(out)) throw new Error(`${out} exists: a shipped dictionary is never changed; train a new id`);

/** Several issuers, each with its own certificate, documents of every kind. */
function documents(seed: number, issuers: number, perIssuer: number, perType: number): KindDocument[] {
  const rnd = generator(seed);
  const docs: KindDocument[] = [];
  for (let i = 0; i < issuers; i++) {
    const from = corpusIssuer(rnd, seed + i);
    docs.push(...realisticTypes(rnd, from, perIssuer), ...generatedTypes(seed + i * 100, from, perType), ...answers(rnd, from, Math.ceil(perIssuer / 10)));
  }
  return docs;
}
const withoutCertificate = (bytes: Buffer) => cutCertificate(bytes)?.rest ?? bytes;

const training = documents(20261127, 8, perIssuer, generated);
const dir = mkdtempSync(join(tmpdir(), 'ecf-dict-'));
try {
  training.forEach((d, i) => writeFileSync(join(dir, `${i}.xml`), withoutCertificate(d.bytes)));
  execFileSync('zstd', ['--train', '-r', dir, '-o', out, `--maxdict=${size}`, `--dictID=${id}`, '-q'], { stdio: 'inherit' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const dictionary = readFileSync(out);
console.log(`${out}: ${dictionary.length} bytes, SHA-256 ${createHash('sha256').update(dictionary).digest('hex')}, trained on ${training.length} documents`);

// Measured on other issuers (their names, addresses and certificates unseen).
const heldOut = documents(777, 3, 300, 12);
const kinds = [...new Set(heldOut.map((d) => d.kind))].sort();
const zstd = (bytes: Buffer, level: number, dict?: Buffer) => compressFrameSync(bytes, dict, level).length;
console.log('kind     n   raw B   zstd-3 no dict   level 3   level 9   (dictionary, certificate cut out; bytes per document)');
for (const kind of kinds) {
  const of = heldOut.filter((d) => d.kind === kind);
  const mean = (f: (d: KindDocument) => number) => Math.round(of.reduce((s, d) => s + f(d), 0) / of.length);
  console.log(
    kind.padEnd(7),
    String(of.length).padStart(4),
    String(mean((d) => d.bytes.length)).padStart(7),
    String(mean((d) => zstd(d.bytes, 3))).padStart(16),
    String(mean((d) => zstd(withoutCertificate(d.bytes), 3, dictionary))).padStart(9),
    String(mean((d) => zstd(withoutCertificate(d.bytes), 9, dictionary))).padStart(9),
  );
}

// And on the big-store benches' pool (bench/corpus/pool.ts: one issuer, 10,000 distinct documents in a
// shop's mix), against every shipped dictionary: bytes per e-CF, its RFCE included where it has one.
const pool = documentPool().slice(0, 3000);
const perEcf = (dict: Buffer, level: number) =>
  Math.round(pool.reduce((n, d) => n + zstd(withoutCertificate(d.xml), level, dict) + (d.rfce ? zstd(withoutCertificate(d.rfce), level, dict) : 0), 0) / pool.length);
const withRfce = pool.filter((d) => d.rfce);
const rfceMean = (dict: Buffer) => Math.round(withRfce.reduce((n, d) => n + zstd(withoutCertificate(d.rfce!), 3, dict), 0) / withRfce.length);
const ecfMean = (dict: Buffer) => Math.round(pool.reduce((n, d) => n + zstd(withoutCertificate(d.xml), 3, dict), 0) / pool.length);
console.log(`bench pool, ${pool.length} e-CF (${withRfce.length} with an RFCE): bytes per e-CF, RFCE included; level 3 (e-CF alone, RFCE alone), level 9`);
for (const [name, dict] of [...SHIPPED_DICTIONARIES.map((d) => [`dictionary ${d.id}`, dictionaryBytes(d.id)!] as const), [`new (id ${id})`, dictionary] as const]) {
  console.log(`${name.padEnd(16)} ${perEcf(dict, 3)} (${ecfMean(dict)}, ${rfceMean(dict)}), ${perEcf(dict, 9)}`);
}
