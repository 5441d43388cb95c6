/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal
 * (never into a pipe or a log file). `clear` wipes the line so other output
 * can be written; the next `update` draws it again.
 */
export interface Progress {
  update(done: number): void;
  clear(): void;
  finish(): void;
}

const NO_PROGRESS: Progress = { update: () => undefined, clear: () => undefined, finish: () => undefined };

export function progressBar(total: number, label: string, enabled = true, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || stream.isTTY !== true) return NO_PROGRESS;
  let shown = false;
  let last = 0;
  const draw = (done: number) => {
    const columns = stream.columns || 80;
    const counter = ` ${done}/${total}`;
    const width = Math.max(10, Math.min(40, columns - label.length - counter.length - 4));
    const filled = total === 0 ? width : Math.round((done / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${counter}\x1b[K`);
    shown = true;
  };
  return {
    update(done) {
      last = done;
      draw(done);
    },
    clear() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
    finish() {
      draw(last);
      stream.write('\n');
      shown = false;
    },
  };
}
