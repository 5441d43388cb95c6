// The layouts live with the settings that name them (settings/layouts.ts): settings sit below representation and must not import it.
export { LAYOUTS, LayoutSchema, type Layout } from '../settings/layouts.js';
