import * as zlib from 'node:zlib';

/**
 * One raw deflate (or inflate) context for a whole archive instead of one
 * per entry. `deflateRawSync` makes a native zlib context (about 300 KB for
 * deflate at level 6) and a 16 KB output buffer for every call: at a few
 * thousand entries a second, that memory is made and freed faster than it
 * is given back to the system, and it was most of an export's peak RSS
 * (docs/record.md). A stream's native handle is reused here, reset
 * between entries, writing into one kept output buffer. The handle is not a
 * public interface (as with store/documents/zstd-handle.ts): whatever does
 * not behave as expected (no handle, an error, input left over, output
 * room used up) goes the public way for that entry and opens a new context.
 */

interface Handle {
  writeSync(flush: number, input: Buffer, inOffset: number, inLength: number, output: Buffer, outOffset: number, outLength: number): void;
  reset(): void;
  close(): void;
  onerror: (message: string, errno: number) => void;
}

interface Context {
  readonly stream: { close(): void };
  readonly handle: Handle;
  /** [output room left, input left] after each writeSync. */
  readonly state: Uint32Array;
  failed: boolean;
}

/** Output room of the kept buffer; an entry whose result may not fit goes the public way. */
const ROOM = 1 << 20;

function open(kind: 'deflate' | 'inflate', level: number): Context | null {
  const stream = (kind === 'deflate' ? zlib.createDeflateRaw({ level }) : zlib.createInflateRaw()) as unknown as { _handle?: Handle; _writeState?: unknown; close(): void };
  const handle = stream._handle;
  const state = stream._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
    stream.close();
    return null;
  }
  const context: Context = { stream, handle, state, failed: false };
  handle.onerror = () => {
    context.failed = true;
  };
  return context;
}

class KeptZlib {
  #context: Context | null | undefined;
  #output: Buffer | undefined;

  constructor(readonly kind: 'deflate' | 'inflate', readonly level: number) {}

  /** The result in the kept buffer (valid until the next call), or null: go the public way. */
  protected run(input: Buffer, expected: number): Buffer | null {
    if (expected > ROOM - 1) return null;
    if (this.#context === undefined) this.#context = open(this.kind, this.level);
    const context = this.#context;
    if (!context) return null;
    const output = (this.#output ??= Buffer.allocUnsafe(ROOM));
    try {
      context.handle.writeSync(zlib.constants.Z_FINISH, input, 0, input.length, output, 0, output.length);
      context.handle.reset();
    } catch {
      context.failed = true;
    }
    const [outLeft, inLeft] = context.state;
    // With room left after Z_FINISH the stream has ended; anything else is not trusted.
    if (context.failed || inLeft !== 0 || outLeft === 0) {
      this.#drop();
      return null;
    }
    return output.subarray(0, output.length - outLeft!);
  }

  #drop(): void {
    try {
      this.#context?.stream.close();
    } catch {
      /* closing a failed context is best effort */
    }
    this.#context = undefined;
  }

  close(): void {
    this.#drop();
    this.#context = null;
  }
}

export class KeptDeflater extends KeptZlib {
  constructor(level: number) {
    super('deflate', level);
  }

  /** Raw deflate of `data`: a view of the kept buffer, valid until the next call. */
  deflate(data: Buffer): Buffer {
    // deflateBound: stored blocks at worst add 5 bytes per 16 KB block, plus the stream's end.
    return this.run(data, data.length + 5 * Math.ceil(data.length / 16_384 + 1) + 16) ?? zlib.deflateRawSync(data, { level: this.level });
  }
}

export class KeptInflater extends KeptZlib {
  constructor() {
    super('inflate', 0);
  }

  /** Raw inflate of `data` known to give `size` bytes: a view of the kept buffer, valid until the next call. */
  inflate(data: Buffer, size: number): Buffer {
    return this.run(data, size) ?? zlib.inflateRawSync(data);
  }
}
