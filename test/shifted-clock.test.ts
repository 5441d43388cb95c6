import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/shifted-clock.mjs', import.meta.url));

// The clock preloaded into processes a test cannot hand a clock to (test/engine/store/multi-node.test.ts).
describe('test/fixtures/shifted-clock.mjs', () => {
  it("moves a process's Date (now, new Date(), Date()) ahead by the ms its file says, read again while it runs; dates given stay as given", async () => {
    const file = join(tempDir(), 'shift-ms');
    writeFileSync(file, String(3_600_000));
    // The child reports its clock, then again after the test moved it by one more day.
    const script = `
      const { writeFileSync } = await import('node:fs');
      const real = () => performance.timeOrigin + performance.now();
      const first = [Date.now() - real(), new Date().getTime() - real(), Date.parse(Date()) - real() > 3_598_000, new Date(5).getTime(), new Date() instanceof Date];
      writeFileSync(${JSON.stringify(file)}, String(3_600_000 + 86_400_000));
      await new Promise((r) => setTimeout(r, 300));
      console.log(JSON.stringify([...first, Date.now() - real()]));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ECF_TEST_CLOCK_SHIFT_FILE: file, NODE_OPTIONS: `--import "${PRELOAD}"` },
    });
    const [now, constructed, called, given, isDate, later] = JSON.parse(stdout) as [number, number, boolean, number, boolean, number];
    expect(Math.round(now / 1000)).toBe(3600);
    expect(Math.round(constructed / 1000)).toBe(3600);
    expect(called).toBe(true);
    expect(given).toBe(5);
    expect(isDate).toBe(true);
    expect(Math.round(later / 1000)).toBe(3600 + 86_400);
  });
});
