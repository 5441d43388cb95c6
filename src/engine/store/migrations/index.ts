import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as certificates from './0002-certificates.js';
import * as issuing from './0003-issuing.js';
import * as submission from './0004-submission.js';
import * as listIndexes from './0005-list-indexes.js';
import * as listCounts from './0006-list-counts.js';
import * as webhooks from './0007-webhooks.js';
import * as annulments from './0008-annulments.js';
import * as limits from './0009-limits.js';
import * as reception from './0010-reception.js';
import * as searchIndexes from './0011-search-indexes.js';
import * as sealedSecrets from './0012-sealed-secrets.js';
import * as workLanes from './0013-work-lanes.js';
import * as certification from './0014-certification.js';
import * as receptionAuth from './0015-reception-auth.js';
import * as rangesHeldAfterRestore from './0016-ranges-held-after-restore.js';
import * as compressedDocuments from './0017-compressed-documents.js';
import * as ecfRows from './0018-ecf-rows.js';
import * as retention from './0019-retention.js';
import * as slimRow from './0020-slim-row.js';
import * as tenantKey from './0021-tenant-key.js';
import * as integerInstants from './0022-integer-instants.js';
import * as listPaths from './0023-list-paths.js';
import * as documentKey from './0024-document-key.js';
import * as searchCounts from './0025-search-counts.js';
import * as journal from './0026-journal.js';
import * as periodExports from './0027-exports.js';
import * as consoleSessions from './0028-console-sessions.js';
import * as noteReferences from './0029-note-references.js';
import * as sendingState from './0030-sending-state.js';

/** Every migration, in order. Names sort in apply order; each has a down step. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-certificates': certificates,
  '0003-issuing': issuing,
  '0004-submission': submission,
  '0005-list-indexes': listIndexes,
  '0006-list-counts': listCounts,
  '0007-webhooks': webhooks,
  '0008-annulments': annulments,
  '0009-limits': limits,
  '0010-reception': reception,
  '0011-search-indexes': searchIndexes,
  '0012-sealed-secrets': sealedSecrets,
  '0013-work-lanes': workLanes,
  '0014-certification': certification,
  '0015-reception-auth': receptionAuth,
  '0016-ranges-held-after-restore': rangesHeldAfterRestore,
  '0017-compressed-documents': compressedDocuments,
  '0018-ecf-rows': ecfRows,
  '0019-retention': retention,
  '0020-slim-row': slimRow,
  '0021-tenant-key': tenantKey,
  '0022-integer-instants': integerInstants,
  '0023-list-paths': listPaths,
  '0024-document-key': documentKey,
  '0025-search-counts': searchCounts,
  '0026-journal': journal,
  '0027-exports': periodExports,
  '0028-console-sessions': consoleSessions,
  '0029-note-references': noteReferences,
  '0030-sending-state': sendingState,
};
