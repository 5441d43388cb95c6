import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { HangError } from './check.js';

/** What the child process serving the fuzz world tells the test (serve-world.ts). */
export interface WireWorld {
  readonly url: string;
  readonly port: number;
  readonly tenantId: string;
  readonly keys: { readonly admin: string; readonly organization: string };
  readonly ecf: { readonly xml: string; readonly encf: string; readonly fileName: string };
  readonly acecf: { readonly xml: string; readonly fileName: string };
  readonly canaryUrl: string;
  readonly secretPath: string;
  readonly secretToken: string;
  /** The server's bound on receiving a whole request, in ms (0: none). */
  readonly requestTimeout: number;
  readonly headersTimeout: number;
}

export interface WireServer {
  readonly world: WireWorld;
  /** Asks the child; a child that does not answer within `ms` has hung. */
  readonly ask: <T>(op: 'snapshot' | 'canary' | 'leaks', ms: number) => Promise<T>;
  readonly child: ChildProcess;
  readonly stop: () => Promise<void>;
}

const script = fileURLToPath(new URL('./serve-world.ts', import.meta.url));

export async function startWireServer(p12: { file: Buffer; password: string }, startMs: number): Promise<WireServer> {
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FUZZ_P12: p12.file.toString('base64'), FUZZ_P12_PASSWORD: p12.password },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  const world = await new Promise<WireWorld>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the fuzz server did not start within ${startMs} ms`)), startMs);
    child.on('message', (m: { ready?: WireWorld; id?: number; result?: unknown; error?: string }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve(m.ready);
      } else if (m.id !== undefined) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p?.reject(new Error(m.error));
        else p?.resolve(m.result);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fuzz server exited with ${code}`));
      for (const p of pending.values()) p.reject(new Error(`the fuzz server exited with ${code}`));
    });
  });
  const ask = <T>(op: string, ms: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new HangError(`the fuzz server did not answer ${op} within ${ms} ms`));
      }, ms);
      pending.set(id, { resolve: (v) => (clearTimeout(timer), resolve(v as T)), reject: (e) => (clearTimeout(timer), reject(e)) });
      child.send({ id, op });
    });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.connected) child.disconnect();
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  return { world, ask, child, stop };
}

/** A raw answer: null status when the server closed without answering. */
export interface RawAnswer {
  readonly status: number | null;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Writes `bytes` on a fresh connection and reads until the server closes it
 * (requests carry Connection: close). `halfClose` ends the client's side
 * after writing, as a client that stops mid-body does. Rejects with a
 * HangError after `ms`.
 */
export function rawRequest(port: number, bytes: Buffer | string, options: { ms: number; halfClose?: boolean }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new HangError(`no answer within ${options.ms} ms`));
    }, options.ms);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset after the answer is fine; the answer is what counts
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    });
    socket.write(bytes, () => {
      if (options.halfClose) socket.end();
    });
  });
}

/** Opens a connection, writes `bytes` and leaves it open: a client that stalls mid-request. */
export function stalledRequest(port: number, bytes: Buffer | string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, () => resolve(socket)));
    socket.on('error', reject);
  });
}

export function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: null, headers: {}, body: raw.toString('utf8') };
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  return { status: Number.isInteger(status) ? status : null, headers, body: body.toString('utf8') };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** An HTTP/1.1 request as bytes, with Connection: close and, unless given, the body's Content-Length. */
export function httpRequest(method: string, path: string | Buffer, headers: Record<string, string | Buffer>, body?: Buffer | string): Buffer {
  const head: Buffer[] = [Buffer.from(`${method} `), Buffer.from(path), Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n')];
  const lower = Object.keys(headers).map((h) => h.toLowerCase());
  if (body !== undefined && !lower.includes('content-length') && !lower.includes('transfer-encoding')) head.push(Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n`));
  for (const [k, v] of Object.entries(headers)) head.push(Buffer.from(`${k}: `), Buffer.from(v), Buffer.from('\r\n'));
  head.push(Buffer.from('\r\n'));
  if (body !== undefined) head.push(Buffer.from(body));
  return Buffer.concat(head);
}
