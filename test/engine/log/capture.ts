import type { Engine } from '../../../src/engine/engine-types.js';
import type { EngineLog } from '../../../src/engine/log/logger.js';

export interface Captured {
  readonly level: 'info' | 'warn' | 'error' | 'debug';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps every line, and the same engine writing to it. */
export function capturing(engine: Engine): { engine: Engine; lines: Captured[] } {
  const lines: Captured[] = [];
  const at = (level: Captured['level']) => (fields: object, message: string) => void lines.push({ level, fields: { ...fields } as Record<string, unknown>, message });
  const log: EngineLog = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
  return { engine: { ...engine, log }, lines };
}

/** The state changes logged for one subject (an e-CF, annulment or delivery id), in order. */
export const changesOf = (lines: readonly { fields: Record<string, unknown> }[], subject: string, id: string) =>
  lines.filter((l) => l.fields.stateChange === subject && l.fields[`${subject}Id`] === id).map((l) => l.fields);
