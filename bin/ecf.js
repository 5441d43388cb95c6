#!/usr/bin/env node
import { enableCompileCache } from './compile-cache.js';

enableCompileCache();
const { main } = await import('../dist/bundle/ecf.js');

await main();
// The command is done and its engine closed (the store checkpointed and shut by the
// command's finally). What is left is the runtime's teardown, which the OS does faster
// at exit: leave once stdout and stderr have taken everything written to them.
process.stdout.write('', () => process.stderr.write('', () => process.exit()));
