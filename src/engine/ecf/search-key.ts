/**
 * How names are compared when searching: without case and without accents,
 * so "ferreteria" finds "Ferretería" and "nono" finds "Ñoño". Stored beside
 * the name when an e-CF is written and applied to what the user typed.
 */
export const searchKey = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
