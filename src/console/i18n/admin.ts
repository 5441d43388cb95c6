/**
 * The words of the console's admin pages (docs/console.md), Spanish first:
 * each key `admin.what`; en must have exactly es's keys.
 */
export const adminEs = {
} as const satisfies Record<string, string>;

export const adminEn: { readonly [K in keyof typeof adminEs]: string } = {
};
