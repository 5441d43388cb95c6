// The listener port lives with the client that reports through it (taxauth/call-listeners.ts), so metrics/ sits above taxauth/ and submission/.
export { listenToTaxauthCalls, observeTaxauthCall, type TaxauthCallListener } from '../taxauth/call-listeners.js';
