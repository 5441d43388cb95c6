/**
 * The words of the console's issue pages (docs/console.md), Spanish first:
 * each key `issue.what`; en must have exactly es's keys.
 */
export const issueEs = {
} as const satisfies Record<string, string>;

export const issueEn: { readonly [K in keyof typeof issueEs]: string } = {
};
