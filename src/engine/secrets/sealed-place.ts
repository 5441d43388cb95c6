import type { Db } from '../store/database.js';
import type { SealedPlace } from './file-store.js';

/**
 * Sealed bodies in the shared PostgreSQL store's `sealed_secrets` table: a
 * certificate imported through one node opens on every node holding the
 * key. Each call is its own statement, never inside a business transaction
 * (secrets are put before the row that names them, removed after).
 */
export function databasePlace(db: Db, now: () => Date): SealedPlace {
  return {
    async read(file) {
      return (await db.selectFrom('sealed_secrets').select('body').where('name', '=', file).executeTakeFirst())?.body ?? null;
    },
    async write(file, body) {
      const updated_at = now().toISOString();
      await db
        .insertInto('sealed_secrets')
        .values({ name: file, body, updated_at })
        .onConflict((oc) => oc.column('name').doUpdateSet({ body, updated_at }))
        .execute();
    },
    async remove(file) {
      await db.deleteFrom('sealed_secrets').where('name', '=', file).execute();
    },
    async count() {
      const row = await db.selectFrom('sealed_secrets').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    describe: () => 'encrypted in the database (sealed_secrets), key outside it',
  };
}
