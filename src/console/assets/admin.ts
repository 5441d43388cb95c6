// The script of the console's admin pages (imported by console.ts).
export {};
