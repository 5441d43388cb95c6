import { flatten } from '../../engine/certification/flatten.js';
import type { CertificationSources } from './mode.js';

/**
 * Where the certification mode's sets come from: the workbooks generated
 * like DGII's (made-up data, the applicant's RNC), and the reading of a
 * signed document back into the workbook's columns.
 */
export const certificationSources: CertificationSources = {
  async generate() {
    throw new Error('the certification workbook generator is not available yet');
  },
  flatten: (_kind, xml) => flatten(xml),
};
