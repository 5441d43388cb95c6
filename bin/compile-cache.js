import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where `ecf` keeps V8's compiled code between runs (Node's module compile
 * cache, Node >= 22.1): the service's systemd CacheDirectory= ($CACHE_DIRECTORY),
 * else $XDG_CACHE_HOME/ecf, else %LOCALAPPDATA%\ecf\cache on Windows, else
 * ~/.cache/ecf. NODE_COMPILE_CACHE, when set, wins (Node reads it itself).
 * Undefined when there is no such place.
 */
export function compileCacheDir(env = process.env) {
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  const systemd = env.CACHE_DIRECTORY?.split(':')[0];
  if (systemd) return systemd;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'ecf');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'ecf', 'cache');
  try {
    return join(homedir(), '.cache', 'ecf');
  } catch {
    return undefined; // a user with no home: start without the cache
  }
}

/**
 * Turns the compile cache on before the bundle is imported; on Node 20 (no
 * enableCompileCache) or with NODE_DISABLE_COMPILE_CACHE set, nothing. A
 * cache that cannot be used is never an error: Node checks each entry's
 * checksums and Node version and compiles afresh when one does not match,
 * and enableCompileCache reports a directory it cannot write instead of
 * throwing. Worker threads and child processes inherit the directory
 * through NODE_COMPILE_CACHE.
 */
export function enableCompileCache(env = process.env) {
  if (typeof module.enableCompileCache !== 'function' || env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = compileCacheDir(env);
  if (!dir) return;
  try {
    const result = module.enableCompileCache(dir);
    if (result?.directory && !env.NODE_COMPILE_CACHE) env.NODE_COMPILE_CACHE = dir;
  } catch {
    // A quiet optimisation: the start goes on without it.
  }
}
