import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { Engine } from '../engine/engine-types.js';
import { EngineError, ValidationError, type FieldError } from '../engine/errors.js';
import { ecfXml, getEcf, type EcfView } from '../engine/ecf/index.js';
import { issueAndWait, MAX_IDEMPOTENCY_KEY_LENGTH } from '../engine/ecf/issuing.js';
import { ecfRepresentation } from '../engine/representation/index.js';
import type { Environment } from '../engine/schema-types.js';
import { FINAL_STATES } from '../engine/submission/index.js';

/**
 * Folder drop (`ecf watch DIR`, `ecf serve --watch DIR`): an integration
 * drops issue payloads into DIR/inbox; each is claimed by an atomic rename
 * into DIR/processing, issued with the idempotency key `watch:<file name>`,
 * and moved to DIR/done beside its results (signed XML, PDF, result JSON) or
 * to DIR/failed beside a result JSON with every error. Files in processing
 * when the watcher starts were claimed by a run that stopped: they are
 * finished first, and the key makes the second try return the e-CF the
 * first one issued.
 */

export const FOLDERS = ['inbox', 'processing', 'done', 'failed'] as const;
export const LOCK_FILE = '.ecf-watch.lock';
const KEY_PREFIX = 'watch:';

export interface WatchOptions {
  readonly engine: Engine;
  readonly tenantId: string;
  readonly dir: string;
  readonly environment?: Environment;
  /** PDF layout; the tenant's default when left out. */
  readonly layout?: string;
  /** Rewrite the result JSON of each e-CF in done until the authority's verdict is final. */
  readonly follow?: boolean;
  /** How long a file's size and time must stay unchanged before it is read (ms). */
  readonly settleMs?: number;
  /** How often --follow looks at the statuses, and a full inbox scan runs (ms). */
  readonly pollMs?: number;
  readonly onResult?: (result: WatchResult) => void;
  readonly onError?: (error: unknown) => void;
}

export interface WatchError {
  readonly code: string;
  readonly message: string;
  readonly errors?: readonly FieldError[];
}

/** The result JSON written beside each file in done or failed. */
export interface WatchResult {
  readonly file: string;
  readonly ok: boolean;
  readonly idempotencyKey?: string;
  /** false when this file name (or the payload's internalNumber) had issued the e-CF before. */
  readonly created?: boolean;
  readonly id?: string;
  readonly encf?: string;
  readonly status?: string;
  readonly securityCode?: string;
  readonly qrUrl?: string;
  readonly files?: { readonly payload: string; readonly xml: string; readonly rfceXml: string | null; readonly pdf: string | null; readonly result: string };
  readonly pdfError?: WatchError;
  readonly ecf?: EcfView;
  readonly error?: WatchError;
  readonly processedAt: string;
  readonly updatedAt: string;
}

export interface WatchCounts {
  done: number;
  failed: number;
  /** Files waiting in the inbox or being processed, as last seen. */
  pending: number;
}

export interface FolderWatcher {
  /** Resolves when the files found at start (processing, then inbox) are finished. */
  readonly ready: Promise<void>;
  readonly counts: WatchCounts;
  /** Finishes the file in hand, stops watching and releases the folder. */
  close(): Promise<void>;
}

/** Names that are someone's write in progress, never claimed: dot files and *.tmp, *.part, *~. */
export const isInProgressName = (name: string): boolean => name.startsWith('.') || /\.(tmp|part|partial)$/i.test(name) || name.endsWith('~');

const stemOf = (name: string): string => (extname(name).toLowerCase() === '.json' ? name.slice(0, -5) : name);

/** A name in done/failed that no earlier file took: NAME, else STEM~2.json, STEM~3.json, ... */
function freeName(folder: string, name: string): string {
  if (!existsSync(join(folder, name))) return name;
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 2; ; n++) {
    const candidate = `${stem}~${n}${ext}`;
    if (!existsSync(join(folder, candidate))) return candidate;
  }
}

/** Writes through a temporary name and a rename, so a reader never sees half a file. */
function writeAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

function describe(err: unknown): WatchError {
  if (err instanceof EngineError) {
    const errors = err instanceof ValidationError ? err.errors : [];
    return { code: err.code, message: err.message, ...(errors.length > 0 && { errors }) };
  }
  return { code: 'Watch.Unexpected', message: err instanceof Error ? err.message : String(err) };
}

/** Errors worth trying again later (the store locked or unwritable), the file staying in processing. */
const isTransient = (err: unknown): boolean => err instanceof EngineError && err.kind === 'unavailable';

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** One watcher per folder: DIR/.ecf-watch.lock holds its pid; a lock whose process is gone is taken over. */
function lockFolder(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || processAlive(pid))) {
        throw new EngineError('conflict', 'Watch.FolderBusy', `${dir} is already watched by process ${pid}; one watcher per folder.`);
      }
      unlinkSync(file);
    }
  }
  throw new EngineError('conflict', 'Watch.FolderBusy', `Could not take ${file}.`);
}

/** Creates DIR/inbox, processing, done and failed. */
export function prepareFolders(dir: string): void {
  for (const f of FOLDERS) mkdirSync(join(dir, f), { recursive: true });
}

export async function watchFolder(options: WatchOptions): Promise<FolderWatcher> {
  const { engine, tenantId, dir } = options;
  const settleMs = options.settleMs ?? 1000;
  const pollMs = options.pollMs ?? 5000;
  prepareFolders(dir);
  const unlock = lockFolder(dir);
  const inbox = join(dir, 'inbox');
  const processing = join(dir, 'processing');
  const done = join(dir, 'done');
  const failed = join(dir, 'failed');
  const counts: WatchCounts = { done: 0, failed: 0, pending: 0 };
  const queued = new Set<string>();
  const queue: string[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  /** done/<result>.result.json of e-CF whose verdict is not final yet (--follow). */
  const following = new Map<string, { id: string; status: string }>();

  const now = () => engine.clock.now().toISOString();

  async function finishDone(name: string, issued: { ecf: EcfView; created: boolean }, key: string): Promise<WatchResult> {
    const target = freeName(done, name);
    const stem = stemOf(target);
    const xml = await ecfXml(engine, tenantId, issued.ecf.id);
    writeAtomic(join(done, `${stem}.xml`), xml.bytes);
    let rfceXml: string | null = null;
    if (issued.ecf.submitsRfce) {
      rfceXml = `${stem}.rfce.xml`;
      writeAtomic(join(done, rfceXml), (await ecfXml(engine, tenantId, issued.ecf.id, true)).bytes);
    }
    let pdf: string | null = `${stem}.pdf`;
    let pdfError: WatchError | undefined;
    try {
      const rep = await ecfRepresentation(engine, tenantId, issued.ecf.id, { layout: options.layout });
      writeAtomic(join(done, pdf), rep.pdf);
    } catch (err) {
      // The e-CF is issued and its XML written: a PDF that cannot be drawn (`ecf pdf` can try again) does not undo that.
      pdf = null;
      pdfError = describe(err);
    }
    const at = now();
    const result: WatchResult = {
      file: target,
      ok: true,
      idempotencyKey: key,
      created: issued.created,
      id: issued.ecf.id,
      encf: issued.ecf.encf,
      status: issued.ecf.status,
      securityCode: issued.ecf.securityCode,
      qrUrl: issued.ecf.qrUrl,
      files: { payload: target, xml: `${stem}.xml`, rfceXml, pdf, result: `${stem}.result.json` },
      ...(pdfError && { pdfError }),
      ecf: issued.ecf,
      processedAt: at,
      updatedAt: at,
    };
    writeAtomic(join(done, `${stem}.result.json`), `${JSON.stringify(result, null, 2)}\n`);
    // The payload moves last: until it is in done, a restart finds it in processing and does it again.
    renameSync(join(processing, name), join(done, target));
    if (options.follow && !FINAL_STATES.has(result.status!)) following.set(join(done, `${stem}.result.json`), { id: result.id!, status: result.status! });
    return result;
  }

  function finishFailed(name: string, error: WatchError): WatchResult {
    const target = freeName(failed, name);
    const stem = stemOf(target);
    const at = now();
    const result: WatchResult = { file: target, ok: false, error, processedAt: at, updatedAt: at };
    writeAtomic(join(failed, `${stem}.result.json`), `${JSON.stringify(result, null, 2)}\n`);
    renameSync(join(processing, name), join(failed, target));
    return result;
  }

  /** Issues one claimed file (in processing); returns undefined when it must be tried again later. */
  async function processClaimed(name: string): Promise<WatchResult | undefined> {
    const path = join(processing, name);
    if (/\.result\.json$/i.test(name)) {
      return finishFailed(name, { code: 'Watch.ReservedName', message: `${name} ends in .result.json, the name of the watcher's results; rename it.` });
    }
    if (extname(name).toLowerCase() !== '.json') {
      return finishFailed(name, { code: 'Watch.NotJsonFile', message: `${name} is not a .json file; drop one issue payload per *.json file.` });
    }
    let payload: unknown;
    for (;;) {
      let bytes: Buffer;
      let before: string;
      try {
        before = signature(path);
        bytes = readFileSync(path);
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        return finishFailed(name, { code: 'Watch.FileUnreadable', message: `Cannot read ${name} (${reason}).` });
      }
      try {
        payload = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
        break;
      } catch (err) {
        // A writer that paused longer than the settle time may still hold the file (now in processing): if it grows, read it again.
        await sleep(settleMs);
        let after: string | undefined;
        try {
          after = signature(path);
        } catch {
          after = undefined;
        }
        if (closed) return undefined; // stopping: it stays in processing and the next start reads it again
        if (after !== undefined && after !== before) continue;
        return finishFailed(name, { code: 'Watch.NotJson', message: `${name} is not JSON: ${(err as Error).message}` });
      }
    }
    const key = `${KEY_PREFIX}${name}`;
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return finishFailed(name, {
        code: 'Watch.NameTooLong',
        message: `${name} is too long: the file name is the idempotency key, at most ${MAX_IDEMPOTENCY_KEY_LENGTH - KEY_PREFIX.length} characters.`,
      });
    }
    let issued: { ecf: EcfView; created: boolean };
    try {
      issued = await issueAndWait(engine, tenantId, { idempotencyKey: key, payload, ...(options.environment && { environment: options.environment }) });
    } catch (err) {
      if (isTransient(err)) throw err;
      return finishFailed(name, describe(err));
    }
    return finishDone(name, issued, key);
  }

  /** Claims an inbox file by renaming it into processing; false when it is gone or still held by its writer. */
  function claim(name: string): boolean {
    if (existsSync(join(processing, name))) return false; // a file of that name is in hand; it waits its turn
    try {
      renameSync(join(inbox, name), join(processing, name));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false;
      if (code === 'EBUSY' || code === 'EPERM' || code === 'EACCES') return false; // Windows: still open by its writer
      throw err;
    }
  }

  /** The inbox file has not changed for settleMs (its modification time is that old, and its size held). */
  async function settled(name: string): Promise<boolean> {
    let lastSize = -1;
    for (;;) {
      let size: number;
      let age: number;
      try {
        const s = statSync(join(inbox, name));
        if (!s.isFile()) return false;
        size = s.size;
        age = Date.now() - s.mtimeMs;
      } catch {
        return false;
      }
      if (age >= settleMs && size === lastSize) return true;
      lastSize = size;
      await sleep(age >= settleMs ? 20 : settleMs - age);
      if (closed) return false;
    }
  }

  async function handle(entry: string): Promise<void> {
    const [where, name] = entry.split('/', 2) as ['processing' | 'inbox', string];
    if (where === 'inbox') {
      if (!(await settled(name))) return;
      if (!claim(name)) return;
    } else if (!existsSync(join(processing, name))) {
      return; // finished meanwhile
    }
    for (;;) {
      try {
        const result = await processClaimed(name);
        if (result) {
          if (result.ok) counts.done++;
          else counts.failed++;
          options.onResult?.(result);
        }
        return;
      } catch (err) {
        if (!isTransient(err)) throw err;
        options.onError?.(err);
        if (closed) return; // stays in processing: the next start finishes it
        await sleep(pollMs);
      }
    }
  }

  function enqueue(entry: string): void {
    if (queued.has(entry)) return;
    queued.add(entry);
    queue.push(entry);
    counts.pending = queue.length;
    wake?.();
  }

  function scanInbox(): void {
    let names: string[];
    try {
      names = readdirSync(inbox);
    } catch {
      return;
    }
    for (const n of names.sort()) if (!isInProgressName(n)) enqueue(`inbox/${n}`);
  }

  async function refreshFollowed(): Promise<void> {
    for (const [file, known] of following) {
      if (closed) return;
      let ecf: EcfView;
      try {
        ecf = await getEcf(engine, tenantId, known.id);
      } catch (err) {
        options.onError?.(err);
        continue;
      }
      if (ecf.status !== known.status) {
        try {
          const previous = JSON.parse(readFileSync(file, 'utf8')) as WatchResult;
          writeAtomic(file, `${JSON.stringify({ ...previous, status: ecf.status, ecf, updatedAt: now() }, null, 2)}\n`);
          known.status = ecf.status;
        } catch (err) {
          options.onError?.(err);
        }
      }
      if (FINAL_STATES.has(ecf.status)) following.delete(file);
    }
  }

  /** --follow after a restart: every result in done not final yet. */
  function loadFollowed(): void {
    for (const n of readdirSync(done)) {
      if (!n.endsWith('.result.json')) continue;
      try {
        const r = JSON.parse(readFileSync(join(done, n), 'utf8')) as WatchResult;
        if (r.ok && r.id && r.status && !FINAL_STATES.has(r.status)) following.set(join(done, n), { id: r.id, status: r.status });
      } catch {
        // not ours, or being rewritten
      }
    }
  }

  // Files a stopped run had claimed come first; then what waits in the inbox.
  for (const n of readdirSync(processing).sort()) if (!n.endsWith('.tmp')) enqueue(`processing/${n}`);
  scanInbox();
  const initial = new Set(queue);
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  if (initial.size === 0) resolveReady();
  if (options.follow) loadFollowed();

  const { watch } = await import('chokidar');
  const watcher: FSWatcher = watch(inbox, { depth: 0, ignoreInitial: true, ignored: (p) => p !== inbox && isInProgressName(basename(p)) });
  watcher.on('add', (p) => enqueue(`inbox/${basename(p)}`));
  watcher.on('change', (p) => enqueue(`inbox/${basename(p)}`));
  watcher.on('error', (err) => options.onError?.(err));

  let lastPoll = Date.now();
  const loop = (async () => {
    while (!closed) {
      const entry = queue.shift();
      if (entry === undefined) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, pollMs).unref(); // the file watcher keeps the process alive, not this wait
        });
        wake = undefined;
      } else {
        try {
          await handle(entry);
        } catch (err) {
          options.onError?.(err);
        } finally {
          queued.delete(entry);
          counts.pending = queue.length;
          if (initial.delete(entry) && initial.size === 0) resolveReady();
        }
      }
      if (!closed && Date.now() - lastPoll >= pollMs) {
        lastPoll = Date.now();
        // A safety net: events a file system did not deliver, and files left in processing by an error writing their results.
        try {
          for (const n of readdirSync(processing)) if (!n.endsWith('.tmp')) enqueue(`processing/${n}`);
        } catch (err) {
          options.onError?.(err);
        }
        scanInbox();
        if (options.follow) await refreshFollowed();
      }
    }
  })();

  return {
    ready,
    counts,
    async close() {
      closed = true;
      wake?.();
      await watcher.close();
      await loop;
      resolveReady();
      unlock();
    },
  };
}

const signature = (file: string): string => {
  const s = statSync(file);
  return `${s.size}:${s.mtimeMs}`;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
