// The door of engine/log: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { type EngineLog } from './logger.js';
