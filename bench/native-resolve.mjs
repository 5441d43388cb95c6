// The off-thread resolve hook bench/native-hook.mjs registers on runtimes without
// module.registerHooks: `better-sqlite3` from the package folder it was given.
import { redirect } from './native-redirect.mjs';

let pkg;

export function initialize(data) {
  pkg = data.pkg;
}

export function resolve(specifier, context, next) {
  const url = redirect(specifier, pkg);
  return url ? { url, shortCircuit: true } : next(specifier, context);
}
