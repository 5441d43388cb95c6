/** An e-NCF from its parts: series (E), two-digit type, ten-digit sequence, e.g. E310000000001. */
export const encfOf = (series: string, type: number, sequential: number): string => `${series}${type}${String(sequential).padStart(10, '0')}`;
