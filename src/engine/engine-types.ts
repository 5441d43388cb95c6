import type { Clock } from './clock.js';
import type { Db } from './store/database.js';
import type { StoreDialect } from './store/dialect.js';
import type { RestartSignal } from './store/checkpointer.js';
import type { EngineLog } from './log/logger.js';
import type { SecretsPort } from './secrets/secret-store.js';
import type { TaxauthPort } from './taxauth/port.js';
import type { DocumentStore } from './store/documents/index.js';

/*
 * The Engine type on its own, apart from openEngine (engine.ts): engine.ts
 * builds the ports from secrets/ and taxauth/, whose files name this type,
 * so the type and the opener cannot share a file without an import circle.
 * Types only; engine.ts re-exports them.
 */

/** What every engine function works against: the store, the clock and the ports to the world outside. */
export interface Engine {
  readonly db: Db;
  /** SQLite (the file in the data directory) or PostgreSQL (ECF_DATABASE_URL). */
  readonly dialect: StoreDialect;
  /** The PostgreSQL URL the store was opened with (LISTEN needs a connection of its own); absent for SQLite. */
  readonly databaseUrl?: string;
  /** Set when a checkpointer thread looks after the SQLite WAL: what other threads' engines pass as `checkpointedBy`. */
  readonly restartSignal?: RestartSignal;
  readonly clock: Clock;
  /** Where the secret-store key and, with SQLite, the database live. */
  readonly dataDir: string;
  /** Where the engine logs state changes and background failures; silent unless the opener passes a logger. */
  readonly log: EngineLog;
  /** Where secrets rest (the keychain or the encrypted files), per the `secrets.store` setting. */
  readonly secrets: SecretsPort;
  /** The tax authority's clients, per the `taxauth.*` settings. */
  readonly taxauth: TaxauthPort;
  /** Every write and read of a stored document (store/documents): compression, digests, the certificate texts. */
  readonly documents: DocumentStore;
  close(): Promise<void>;
}

export type { SecretsPort, TaxauthPort };
