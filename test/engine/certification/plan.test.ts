import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextStep, phaseOf, type CaseState, type PlannedCase } from '../../../src/engine/certification/plan.js';

/** A made-up set: ordinary e-CF, consumo 32s with their RFCE, and notes over some of the ordinary ones. */
const sets = fc
  .record({
    ordinary: fc.uniqueArray(fc.constantFrom('31', '32', '41', '43', '44', '45', '46', '47'), { minLength: 1, maxLength: 8 }),
    consumo: fc.integer({ min: 0, max: 4 }),
    notes: fc.array(fc.record({ type: fc.constantFrom('33', '34'), target: fc.nat() }), { maxLength: 4 }),
    rejectAt: fc.option(fc.nat({ max: 30 }), { nil: null }),
    order: fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
  })
  .map(({ ordinary, consumo, notes, rejectAt, order }) => {
    const cases: { kind: string; encf: string; modifiesEncf: string | null }[] = [];
    ordinary.forEach((t, i) => cases.push({ kind: `ecf${t}`, encf: `E${t}00000000${10 + i}`, modifiesEncf: null }));
    for (let i = 0; i < consumo; i++) {
      cases.push({ kind: 'ecf32', encf: `E3200000009${i}0`, modifiesEncf: null });
      cases.push({ kind: 'rfce', encf: `E3200000009${i}0`, modifiesEncf: null });
    }
    notes.forEach((n, i) => cases.push({ kind: `ecf${n.type}`, encf: `E${n.type}00000000${20 + i}`, modifiesEncf: cases[n.target % ordinary.length]!.encf }));
    // Workbook order is not a valid send order: shuffle.
    const shuffled = cases.map((c, i) => ({ c, k: order[i % order.length]! * 100 + i })).sort((a, b) => a.k - b.k).map((x) => x.c);
    return { cases: shuffled, rejectAt };
  });

describe('the send order of a certification set', () => {
  it('sends notes only after the e-CF they modify is accepted, RFCE after every ordinary e-CF, never the consumo 32s, and nothing after a rejection', () => {
    fc.assert(
      fc.property(sets, ({ cases, rejectAt }) => {
        const rfce = new Set(cases.filter((c) => c.kind === 'rfce').map((c) => c.encf));
        let state: (PlannedCase & { state: CaseState })[] = cases.map((c, i) => ({
          id: String(i),
          ...c,
          phase: phaseOf(c.kind, c.encf, rfce),
          state: phaseOf(c.kind, c.encf, rfce) === 'upload' ? 'upload' : 'prepared',
        }));
        let sends = 0;
        let rejected = false;
        for (let guard = 0; guard < 200; guard++) {
          const step = nextStep(state);
          if (step.kind === 'done') {
            expect(rejected).toBe(false);
            expect(state.every((c) => c.state === 'accepted' || c.phase === 'upload')).toBe(true);
            return;
          }
          if (step.kind === 'stopped') {
            expect(rejected).toBe(true);
            return;
          }
          expect(step.kind).not.toBe('blocked');
          if (step.kind === 'wait') {
            state = state.map((c) => (c.state === 'sent' ? { ...c, state: sends === rejectAt ? ((rejected = true), 'rejected') : 'accepted' } : c));
            continue;
          }
          if (step.kind !== 'send') throw new Error('unexpected step');
          const accepted = new Set(state.filter((c) => c.state === 'accepted').map((c) => c.encf));
          for (const c of step.cases) {
            expect(rejected).toBe(false);
            expect(c.phase).not.toBe('upload');
            if (c.modifiesEncf) expect(accepted.has(c.modifiesEncf)).toBe(true);
            if (c.phase === 'rfce') expect(state.filter((x) => x.phase === 'ecf').every((x) => x.state === 'accepted')).toBe(true);
            if (c.phase === 'note') expect(state.filter((x) => x.phase === 'ecf' || x.phase === 'rfce').every((x) => x.state === 'accepted')).toBe(true);
            sends++;
          }
          const ids = new Set(step.cases.map((c) => c.id));
          state = state.map((c) => (ids.has(c.id) ? { ...c, state: 'sent' } : c));
        }
        throw new Error('the plan did not finish');
      }),
      { seed: 2424, numRuns: 300 },
    );
  });

  it('puts the type-32 rows the RFCE sheet names aside for upload, and the rest where they belong', () => {
    const rfce = new Set(['E320000000002']);
    expect(phaseOf('ecf32', 'E320000000002', rfce)).toBe('upload');
    expect(phaseOf('ecf32', 'E320000000001', rfce)).toBe('ecf');
    expect(phaseOf('rfce', 'E320000000002', rfce)).toBe('rfce');
    expect(phaseOf('ecf33', 'E330000000001', rfce)).toBe('note');
    expect(phaseOf('ecf34', 'E340000000001', rfce)).toBe('note');
    expect(phaseOf('acecf', 'E310000000001', rfce)).toBe('approval');
  });
});
