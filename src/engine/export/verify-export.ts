import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LEDGER_HEADER, XML_COLUMNS, csvLine, documentFacts, ledgerRow, parseCsvLine } from './ledger.js';
import { MANIFEST_NAME } from './manifest.js';
import { readManifest } from './manifest-reader.js';
import { ZipReader, type ZipEntry } from './zip-reader.js';
import { signatureChecker } from '../signing/signature-checker.js';
import { runInThread } from './in-thread.js';

/**
 * `ecf export verify`: an export checked from its own bytes, with no store:
 * every file against the manifest (SHA-256, size, missing, extra), the
 * manifest's signature, each document's own signature (the verifier of
 * `ecf store verify --signatures`), and the ledger's CSV rows against rows
 * recomputed from the XML. What does not hold is named, file by file.
 */

export interface ExportProblem {
  readonly file: string;
  readonly problem: string;
}

export interface ExportVerifyReport {
  readonly ok: boolean;
  readonly files: number;
  readonly documents: number;
  readonly signaturesChecked: number;
  readonly ledgerRows: number;
  readonly manifestSignature: 'valid' | 'invalid';
  readonly certificate: { readonly subject: string; readonly sha256: string } | null;
  readonly problems: readonly ExportProblem[];
}

export interface ExportVerifyOptions {
  /** Check each document's XML signature (a few milliseconds a document); on unless turned off. */
  readonly signatures?: boolean;
  readonly onProgress?: (checked: number, of: number) => void;
}

/** Documents read whole (their signature and ledger row need them so); larger ones are streamed. */
const WHOLE_LIMIT = 32 << 20;
/** Other entries (the ledgers, the manifest) read whole only when small: a big one read whole was the verification's peak. */
const OTHER_WHOLE_LIMIT = 256 << 10;
const XML_ONLY = LEDGER_HEADER.filter((c) => XML_COLUMNS.has(c));


/** When a document says it was signed (or answered): the certificate must have been valid then. */
function signedAt(bytes: Buffer, fallback: Date): Date {
  const m = /<(?:FechaHoraFirma|FechaHora[A-Za-z]*)>(\d{2})-(\d{2})-(\d{4}) (\d{2}:\d{2}:\d{2})</.exec(bytes.toString('utf8'));
  return m ? new Date(`${m[3]}-${m[2]}-${m[1]}T${m[4]}-04:00`) : fallback;
}

/** Which ledger a document's row belongs to, if any. */
function ledgerSide(name: string): 'issued' | 'received' | null {
  if (/^issued\/[^/]+\/[^/.]+\.xml$/.test(name)) return 'issued';
  if (/^received\/(?!refused\/)[^/]+\/[^/.]+\.xml$/.test(name)) return 'received';
  return null;
}

const isDocument = (name: string) => /^(issued|received|annulments|approvals)\//.test(name) && name.endsWith('.xml');
/** A refused e-CF is kept as it came: its own signature may be what made it refused. */
const signatureExpected = (name: string) => isDocument(name) && !/^received\/refused\/[^/.]+\.xml$/.test(name);

const readWhole = (entry: ZipEntry) => entry.size <= (isDocument(entry.name) ? WHOLE_LIMIT : OTHER_WHOLE_LIMIT);

async function* entryBytes(zip: ZipReader, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (readWhole(entry)) yield zip.readKept(entry);
  else yield* zip.stream(entry);
}

/** Lines of a streamed text, without their CRLF. */
async function* lines(pieces: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let carry = '';
  const decoder = new TextDecoder('utf-8');
  for await (const piece of pieces) {
    carry += decoder.decode(piece, { stream: true });
    let at: number;
    while ((at = carry.indexOf('\r\n')) >= 0) {
      yield carry.slice(0, at);
      carry = carry.slice(at + 2);
    }
  }
  carry += decoder.decode();
  if (carry !== '') yield carry;
}

/** `ecf export verify`, run in a worker thread of its own (in-thread.ts says why). */
export const verifyExport = (file: string, options: ExportVerifyOptions = {}): Promise<ExportVerifyReport> =>
  runInThread<ExportVerifyReport, { checked: number; of: number }>({ task: 'verify', file, signatures: options.signatures !== false }, options.onProgress && ((p) => options.onProgress!(p.checked, p.of)));

/** The verification itself, in the thread. */
export async function checkExport(file: string, options: ExportVerifyOptions = {}): Promise<ExportVerifyReport> {
  const zip = new ZipReader(file);
  const work = mkdtempSync(join(tmpdir(), 'ecf-export-verify-'));
  const problems: ExportProblem[] = [];
  const found = (f: string, problem: string) => problems.push({ file: f, problem });
  try {
    let manifestEntry: ZipEntry | null = null;
    for (const e of zip.entries()) if (e.name === MANIFEST_NAME) manifestEntry = e;
    if (!manifestEntry) {
      found(MANIFEST_NAME, 'missing: the export has no manifest');
      return { ok: false, files: zip.count, documents: 0, signaturesChecked: 0, ledgerRows: 0, manifestSignature: 'invalid', certificate: null, problems };
    }
    const manifest = await readManifest(entryBytes(zip, manifestEntry), zip.count);
    if (!manifest.signature.ok) found(MANIFEST_NAME, `signature: ${manifest.signature.reason}`);
    for (const d of manifest.duplicates) found(d, 'listed twice in the manifest');
    const createdAt = new Date(/<CreatedAt>([^<]*)<\/CreatedAt>/.exec(manifest.outside)?.[1] ?? Date.now());

    const check = options.signatures === false ? null : await signatureChecker();
    const expected = { issued: join(work, 'issued'), received: join(work, 'received') };
    const expectedFd = { issued: openSync(expected.issued, 'w'), received: openSync(expected.received, 'w') };
    const csvEntries: Partial<Record<'issued' | 'received', ZipEntry>> = {};
    // Names in the ZIP that the manifest does not list (none in a sound export); the listed ones are marked in the index.
    const unlisted = new Set<string>();
    let documents = 0;
    let signaturesChecked = 0;
    let checked = 0;
    for (const entry of zip.entries()) {
      checked++;
      if (checked % 1000 === 0) options.onProgress?.(checked, zip.count);
      if (entry === manifestEntry || entry.name === MANIFEST_NAME) continue;
      if (unlisted.has(entry.name) || manifest.files.taken(entry.name)) {
        found(entry.name, 'in the ZIP twice');
        continue;
      }
      const listed = manifest.files.take(entry.name);
      if (!listed) {
        unlisted.add(entry.name);
        found(entry.name, 'extra: in the ZIP but not in the manifest');
      }
      if (entry.name === 'ledger-issued.csv') csvEntries.issued = entry;
      if (entry.name === 'ledger-received.csv') csvEntries.received = entry;
      const hash = createHash('sha256');
      let size = 0;
      let whole: Buffer | null = null;
      try {
        for await (const piece of entryBytes(zip, entry)) {
          hash.update(piece);
          size += piece.length;
          if (readWhole(entry)) whole = piece;
        }
      } catch (e) {
        found(entry.name, (e as Error).message);
        continue;
      }
      const sha256 = hash.digest('hex');
      if (listed && (listed.sha256 !== sha256 || listed.size !== size)) found(entry.name, `changed: its SHA-256 or size (${size} bytes) is not the manifest's (${listed.size} bytes)`);
      if (!whole || !isDocument(entry.name)) continue;
      documents++;
      if (check && signatureExpected(entry.name)) {
        signaturesChecked++;
        const wrong = check(whole, signedAt(whole, createdAt));
        if (wrong) found(entry.name, `its own signature: ${wrong}`);
      }
      const side = ledgerSide(entry.name);
      if (side) {
        const row = ledgerRow(documentFacts(whole), side, { at: '', status: '', verdict: '', trackId: '', environment: '' });
        writeSync(expectedFd[side], csvLine(XML_ONLY.map((c) => row[c])));
      }
    }
    closeSync(expectedFd.issued);
    closeSync(expectedFd.received);
    for (const name of manifest.files.untaken()) found(name, 'missing: listed in the manifest but not in the ZIP');
    let ledgerRows = 0;
    for (const side of ['issued', 'received'] as const) {
      const entry = csvEntries[side];
      if (!entry) continue; // named as missing above, when the manifest lists it
      ledgerRows += await compareLedger(zip, entry, expected[side], found);
    }
    const certificate = manifest.signature.ok ? { subject: manifest.signature.certificate.subject, sha256: createHash('sha256').update(manifest.signature.certificate.raw).digest('hex') } : null;
    return { ok: problems.length === 0, files: zip.count, documents, signaturesChecked, ledgerRows, manifestSignature: manifest.signature.ok ? 'valid' : 'invalid', certificate, problems };
  } finally {
    zip.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The CSV's rows, in order, against the rows recomputed from the documents (the columns the XML gives). */
async function compareLedger(zip: ZipReader, entry: ZipEntry, expectedPath: string, found: (f: string, p: string) => void): Promise<number> {
  const expected = createInterface({ input: createReadStream(expectedPath, 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let header: string[] | null = null;
  let rows = 0;
  let differences = 0;
  const note = (p: string) => {
    if (++differences <= 100) found(entry.name, p);
  };
  for await (const line of lines(entryBytes(zip, entry))) {
    if (header === null) {
      header = parseCsvLine(line);
      if (header.join(',') !== LEDGER_HEADER.join(',')) {
        note('its header is not the ledger\'s columns');
        return 0;
      }
      continue;
    }
    rows++;
    const cells = parseCsvLine(line);
    const actual = csvLine(XML_ONLY.map((c) => cells[LEDGER_HEADER.indexOf(c)] ?? '')).slice(0, -2);
    const next = await expected.next();
    if (next.done) {
      note(`row ${rows} (e-NCF ${cells[0]}) has no document in the export`);
      continue;
    }
    if (next.value !== actual) {
      const want = parseCsvLine(next.value);
      const columns = XML_ONLY.filter((c, i) => want[i] !== (cells[LEDGER_HEADER.indexOf(c)] ?? ''));
      note(`row ${rows} (e-NCF ${cells[0]}) does not agree with its XML in ${columns.join(', ')}`);
    }
  }
  for (let next = await expected.next(); !next.done; next = await expected.next()) note(`the document of e-NCF ${parseCsvLine(next.value)[0]} has no row in the ledger`);
  if (differences > 100) found(entry.name, `and ${differences - 100} more row differences`);
  return rows;
}
