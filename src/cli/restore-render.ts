import type { RangesHeld } from '../engine/backup/index.js';

/** What `ecf restore` says about the e-NCF ranges it held, and what to run before issuing again. */
export function heldText(held: RangesHeld): string {
  if (held.count === 0) return 'No e-NCF range was restored.';
  return [
    `Held all ${held.count} e-NCF range(s): the store this backup came from may have issued numbers after it was taken, so none issues until its next number is known unused.`,
    'Ask the tax authority (it moves each range past the numbers it knows, then releases it):',
    ...held.checks.map((c) => `  ${c.command}    # RNC ${c.rnc}, ${c.ranges} range(s)`),
    'If the authority cannot be asked, set each range’s next number yourself with `ecf sequence next`. See docs/operating.md, "After a restore: the e-NCF ranges are held".',
  ].join('\n');
}
