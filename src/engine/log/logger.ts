/**
 * The engine's logger port: the few calls the engine makes, taking an object
 * of fields and a message, the shape pino and most structured loggers share.
 * The engine never imports a logging library; `ecf serve` passes its pino
 * logger, tests a capturing one, and everything else gets silence.
 */
export interface EngineLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

const nothing = (): void => {};

/** The default: a CLI command prints its own results and logs nothing. */
export const silentLog: EngineLog = { info: nothing, warn: nothing, error: nothing, debug: nothing };
