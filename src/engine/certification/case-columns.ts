import { Type, type Static } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';

/** `certification_cases.cells`: the workbook row, header to cell text. */
export const CellsColumn = Type.Record(Type.String(), Type.String());

/** `certification_cases.messages`: the authority's messages on the case's last verdict. */
export const CaseMessagesColumn = Type.Array(Type.Object({ code: Type.Integer(), value: Type.String() }));

export const cellsOf = (stored: string): Static<typeof CellsColumn> => parseJsonColumn(CellsColumn, stored, 'certification_cases.cells');

export const caseMessagesOf = (stored: string | null): Static<typeof CaseMessagesColumn> =>
  stored ? parseJsonColumn(CaseMessagesColumn, stored, 'certification_cases.messages') : [];
