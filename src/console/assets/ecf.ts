// The script of the console's ecf pages (imported by console.ts).
export {};
