import { join } from 'node:path';
import type { Engine } from '../engine-types.js';

/** Where exports asked for over the API lie (the data dir's exports/): apart from jobs.ts so that the store-clean job loads nothing else of the export. */
export const EXPORTS_DIR = 'exports';

export const exportFilePath = (engine: Pick<Engine, 'dataDir'>, id: string): string => join(engine.dataDir, EXPORTS_DIR, `${id}.zip`);
