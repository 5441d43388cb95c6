// Bench-only (bench/runtimes.mjs): on a Node whose ABI the shared node_modules was not built
// for, `better-sqlite3` resolves to the copy built for this ABI in .cache/native/, from an
// import, a require() and a require.resolve() alike (the store's checkpoint thread is handed
// the path require.resolve gives). Where the runtime has synchronous in-thread hooks
// (module.registerHooks, Node 22.15 and later) they do all three, and a start measured under
// them pays almost nothing; Node 20 gets module.register for imports (its hooks run on a thread
// of their own, a few tens of ms per start) and CommonJS resolution wrapped for the rest.
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { redirect } from './native-redirect.mjs';

const pkg = process.env.BENCH_BETTER_SQLITE3;

if (pkg && typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve(specifier, context, next) {
      const url = redirect(specifier, pkg);
      return url ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
} else if (pkg) {
  module.register(new URL('./native-resolve.mjs', import.meta.url), { data: { pkg } });
  const resolveFilename = module._resolveFilename;
  module._resolveFilename = function (request, ...rest) {
    const url = redirect(request, pkg);
    return resolveFilename.call(this, url ? fileURLToPath(url) : request, ...rest);
  };
}
