import { flatten } from '../../engine/certification/flatten.js';
import { readPaso2Workbook, readPaso3Workbook } from '../../engine/certification/workbook.js';
import { SANDBOX_TAXPAYER_RNC } from '../taxpayer.js';
import type { CertificationSources } from './mode.js';
import { certificationWorkbooks } from './workbooks.js';

/**
 * Where the certification mode's sets come from: the workbooks generated
 * like DGII's (made-up data, the applicant's RNC, the sandbox taxpayer as
 * the fixed counterpart), and the reading of a signed document back into
 * the workbook's columns. The rows the judge compares with are read back
 * from the generated files with the appliance's own reader, so the set is
 * exactly what the applicant downloads.
 */
export const certificationSources: CertificationSources = {
  async generate(rnc, variant) {
    const books = await certificationWorkbooks({ rnc, variant, counterpart: SANDBOX_TAXPAYER_RNC });
    const [paso2, paso3] = await Promise.all([readPaso2Workbook(books.paso2), readPaso3Workbook(books.paso3)]);
    return { paso2: books.paso2, paso3: books.paso3, rows: [...paso2.rows, ...paso3.rows] };
  },
  flatten: (_kind, xml) => flatten(xml),
};
