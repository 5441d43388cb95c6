// Bench-only (bench/runtimes.mjs): on a Node whose ABI the shared node_modules was not built
// for, `better-sqlite3` resolves to the copy built for this ABI in .cache/native/. Where the
// runtime has synchronous in-thread hooks (module.registerHooks, Node 22.15 and later) they are
// used, so a start measured under the hook pays almost nothing for it; Node 20 gets
// module.register, whose hooks run on a thread of their own (a few tens of ms per start).
import module from 'node:module';
import { redirect } from './native-redirect.mjs';

const pkg = process.env.BENCH_BETTER_SQLITE3;

if (pkg && typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve(specifier, context, next) {
      const url = redirect(specifier, pkg);
      return next(url ?? specifier, context);
    },
  });
} else if (pkg) {
  module.register(new URL('./native-resolve.mjs', import.meta.url), { data: { pkg } });
}
