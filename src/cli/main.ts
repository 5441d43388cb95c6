import { execute } from '@oclif/core';

/**
 * The `ecf` program: bin/ecf.js runs this module from the bundle (dist/bundle/ecf.js),
 * where @oclif/core is inlined with the commands, so one copy of it serves both.
 */
export const main = (): Promise<unknown> => execute({ dir: import.meta.url });
