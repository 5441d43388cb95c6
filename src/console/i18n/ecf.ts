/**
 * The words of the console's ecf pages (docs/console.md), Spanish first:
 * each key `ecf.what`; en must have exactly es's keys.
 */
export const ecfEs = {
} as const satisfies Record<string, string>;

export const ecfEn: { readonly [K in keyof typeof ecfEs]: string } = {
};
