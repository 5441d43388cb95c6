/** The XMLDSig identifiers of the one profile the authority uses (NOTES §5): signers and verifiers name them from here. */
export const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const C14N_COMMENTS = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const EXC_C14N_COMMENTS = 'http://www.w3.org/2001/10/xml-exc-c14n#WithComments';
/** The canonicalizations a verifier accepts (signers write inclusive C14N only). */
export const CANONICALIZATIONS: ReadonlySet<string> = new Set([C14N, C14N_COMMENTS, EXC_C14N, EXC_C14N_COMMENTS]);
