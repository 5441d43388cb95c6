import { createRequire } from 'node:module';

type Undici = typeof import('undici');

const require = createRequire(import.meta.url);
let loaded: Undici | undefined;

/**
 * undici, loaded on first use. Loading it takes about 100 ms, and every run
 * of `ecf` loads every command's modules: `ecf issue`, which sends nothing,
 * should not pay for it. (undici is CommonJS, so it loads synchronously.)
 */
export const undici = (): Undici => (loaded ??= require('undici') as Undici);
