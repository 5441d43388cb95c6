import { Type } from '@sinclair/typebox';

/** The layouts of the printed representation. Kept apart from the renderer, whose PDF libraries load only when a PDF is drawn. */
export const LAYOUTS = ['letter', 'pos', 'pos58'] as const;
export type Layout = (typeof LAYOUTS)[number];

export const LayoutSchema = Type.Union(
  LAYOUTS.map((l) => Type.Literal(l)),
  {
    errorMessage: 'must be letter, pos (80 mm roll) or pos58 (58 mm roll)',
    description: 'letter (8.5 × 11 in), pos (80 mm roll) or pos58 (58 mm roll)',
  },
);
