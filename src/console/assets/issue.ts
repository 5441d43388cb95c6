// The script of the console's issue pages (imported by console.ts).
export {};
