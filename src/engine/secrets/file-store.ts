import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError } from '../errors.js';
import { SECRET_KEY_FILE } from '../data-dir.js';
import { ensureSecretStoreKey, sealedFilesIn } from './key-file.js';
import type { SecretStore } from './secret-store.js';

/** Where the sealed bodies rest, by the hash of the secret's name. */
export interface SealedPlace {
  read(file: string): Promise<string | null>;
  write(file: string, body: string): Promise<void>;
  remove(file: string): Promise<void>;
  /** How many sealed bodies rest here (a key is never made anew while there are any). */
  count(): Promise<number>;
  describe(): string;
}

/** `<data dir>/secrets`: one machine's files, mode 0600. */
export function directoryPlace(dataDir: string): SealedPlace {
  const dir = join(dataDir, 'secrets');
  return {
    async read(file) {
      return existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : null;
    },
    async write(file, body) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, `${file}.tmp`), body, { mode: 0o600 });
      renameSync(join(dir, `${file}.tmp`), join(dir, file));
    },
    async remove(file) {
      rmSync(join(dir, file), { force: true });
    },
    count: async () => sealedFilesIn(dataDir).count,
    describe: () => `encrypted files in ${dir}`,
  };
}

/**
 * Secrets sealed with AES-256-GCM under a 32-byte key that never enters the
 * database: `ECF_SECRET_KEY` (base64) when set, for machines that mount it,
 * else the key file beside the database (mode 0600). The sealed bodies rest
 * as files under `<data dir>/secrets`, or, when several machines share a
 * PostgreSQL store, in its `sealed_secrets` table (sealed-place.ts), so
 * every node with the key opens them. The secret's name is the additional
 * data, so a body moved to another name fails to open.
 */
export class EncryptedFileStore implements SecretStore {
  readonly kind = 'file' as const;
  readonly #dataDir: string;
  readonly #secretKey: string | undefined;
  readonly #place: SealedPlace;
  #key: Promise<Buffer> | undefined;

  /** `secretKey`: ECF_SECRET_KEY as the engine read it when it opened (engine.secrets). */
  constructor(dataDir: string, secretKey: string | undefined, place: SealedPlace = directoryPlace(dataDir)) {
    this.#dataDir = dataDir;
    this.#secretKey = secretKey;
    this.#place = place;
  }

  /**
   * Loaded when a secret is first sealed or opened, not when the store is
   * made: choosing or describing the store (readiness, `ecf doctor`) never
   * makes a key. Forgotten after a failure, so a key put back is found.
   */
  #keyNow(): Promise<Buffer> {
    this.#key ??= loadKey(this.#dataDir, this.#secretKey, this.#place).catch((err: unknown) => {
      this.#key = undefined;
      throw err;
    });
    return this.#key;
  }

  #file(name: string): string {
    return `${createHash('sha256').update(name).digest('hex')}.sealed`;
  }

  async put(name: string, secret: Buffer): Promise<void> {
    const key = await this.#keyNow();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(name));
    const sealed = Buffer.concat([cipher.update(secret), cipher.final()]);
    const body = JSON.stringify({ v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: sealed.toString('base64') });
    await this.#place.write(this.#file(name), body);
  }

  async get(name: string): Promise<Buffer | null> {
    const stored = await this.#place.read(this.#file(name));
    if (stored === null) return null;
    const key = await this.#keyNow();
    const { iv, tag, data } = JSON.parse(stored) as { iv: string; tag: string; data: string };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64')).setAAD(Buffer.from(name));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
    } catch {
      throw new EngineError('unavailable', 'SecretStore.KeyMismatch', 'A stored secret cannot be opened with the current secret-store key.');
    }
  }

  async delete(name: string): Promise<void> {
    await this.#place.remove(this.#file(name));
  }

  describe(): string {
    return this.#place.describe();
  }
}

async function loadKey(dataDir: string, fromEnv: string | undefined, place: SealedPlace): Promise<Buffer> {
  if (fromEnv) {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new EngineError('unavailable', 'SecretStore.BadKey', 'ECF_SECRET_KEY must be 32 bytes in base64.');
    return key;
  }
  if (!existsSync(join(dataDir, SECRET_KEY_FILE))) ensureSecretStoreKey(dataDir, { count: await place.count(), where: place.describe() });
  const key = Buffer.from(readFileSync(join(dataDir, SECRET_KEY_FILE), 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new EngineError('unavailable', 'SecretStore.BadKey', `${SECRET_KEY_FILE} must hold 32 bytes in base64.`);
  return key;
}
