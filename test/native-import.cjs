// Node's own dynamic import, for a module that must be loaded as Node loads it
// (test/cli-runner.ts: the CLI bundle), not through vitest's module runner.
// Loaded with createRequire, so this file is never transformed.
module.exports = (url) => import(url);
