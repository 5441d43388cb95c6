// The door of engine/console-sessions: what the adapters (src/console) use of this area.
// Named re-exports only, so the list is a deliberate choice.
export {
  ABSOLUTE_MS,
  IDLE_MS,
  closeConsoleSession,
  openConsoleSession,
  resolveConsoleSession,
  type ConsolePrincipal,
  type OpenedConsoleSession,
} from './sessions.js';
