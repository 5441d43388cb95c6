import Attempts from './commands/attempts.js';
import Retry from './commands/retry.js';
import Status from './commands/status.js';
import ContingencyOn from './commands/contingency/on.js';
import ContingencyOff from './commands/contingency/off.js';
import Sandbox from './commands/sandbox.js';
import TaxauthCheck from './commands/taxauth/check.js';
import TaxauthStatus from './commands/taxauth/status.js';
import TaxauthStatusKeySet from './commands/taxauth/status-key/set.js';
import TaxauthStatusKeyUnset from './commands/taxauth/status-key/unset.js';
import Init from './commands/init.js';
import Migrate from './commands/migrate.js';
import MigrateStore from './commands/migrate-store.js';
import Serve from './commands/serve.js';
import TenantCreate from './commands/tenant/create.js';
import OrgCreate from './commands/org/create.js';
import OrgList from './commands/org/list.js';
import OrgShow from './commands/org/show.js';
import OrgMemberAdd from './commands/org/member/add.js';
import OrgMemberList from './commands/org/member/list.js';
import TenantList from './commands/tenant/list.js';
import TenantShow from './commands/tenant/show.js';
import TenantUpdate from './commands/tenant/update.js';
import TenantProfile from './commands/tenant/profile.js';
import TenantAttach from './commands/tenant/attach.js';
import TenantPause from './commands/tenant/pause.js';
import TenantResume from './commands/tenant/resume.js';
import OrgUsage from './commands/org/usage.js';
import KeyCreate from './commands/key/create.js';
import KeyList from './commands/key/list.js';
import KeyRevoke from './commands/key/revoke.js';
import SettingsList from './commands/settings/list.js';
import SettingsGet from './commands/settings/get.js';
import SettingsSet from './commands/settings/set.js';
import SettingsUnset from './commands/settings/unset.js';
import CertImport from './commands/cert/import.js';
import CertList from './commands/cert/list.js';
import CertShow from './commands/cert/show.js';
import CertRevoke from './commands/cert/revoke.js';
import Doctor from './commands/doctor.js';
import SequenceAdd from './commands/sequence/add.js';
import SequenceList from './commands/sequence/list.js';
import SequenceAnnul from './commands/sequence/annul.js';
import SequenceAnnulRetry from './commands/sequence/annul-retry.js';
import SequenceAnnulments from './commands/sequence/annulments.js';
import Issue from './commands/issue.js';
import Show from './commands/show.js';
import List from './commands/list.js';
import Xml from './commands/xml.js';
import Backup from './commands/backup.js';
import Restore from './commands/restore.js';
import WebhookList from './commands/webhook/list.js';
import WebhookAdd from './commands/webhook/add.js';
import WebhookRemove from './commands/webhook/remove.js';
import WebhookDeliveries from './commands/webhook/deliveries.js';
import WebhookRetry from './commands/webhook/retry.js';
import WebhookPing from './commands/webhook/ping.js';
import Pdf from './commands/pdf.js';
import ReceivedList from './commands/received/list.js';
import ReceivedShow from './commands/received/show.js';
import ReceivedApprove from './commands/received/approve.js';
import ReceivedReject from './commands/received/reject.js';
import Watch from './commands/watch.js';
import CertifyWorkbook from './commands/certify/workbook.js';
import CertifySign from './commands/certify/sign.js';
import CertifyReceiver from './commands/certify/receiver.js';
import CertifyArrivals from './commands/certify/arrivals.js';
import CertifySimulate from './commands/certify/simulate.js';
import CertifyPrint from './commands/certify/print.js';
import CertifyStart from './commands/certify/start.js';
import CertifyImport from './commands/certify/import.js';
import CertifyRun from './commands/certify/run.js';
import CertifyStatus from './commands/certify/status.js';
import CertifyUploads from './commands/certify/uploads.js';
import CertifyMark from './commands/certify/mark.js';

/**
 * Every command of `ecf`, by id (topic and verb joined by `:`). oclif loads
 * this map instead of scanning folders, which keeps start-up fast.
 */
export const commands = {
  backup: Backup,
  restore: Restore,
  attempts: Attempts,
  retry: Retry,
  status: Status,
  'contingency:on': ContingencyOn,
  'contingency:off': ContingencyOff,
  sandbox: Sandbox,
  'taxauth:check': TaxauthCheck,
  'taxauth:status': TaxauthStatus,
  'taxauth:status-key:set': TaxauthStatusKeySet,
  'taxauth:status-key:unset': TaxauthStatusKeyUnset,
  init: Init,
  migrate: Migrate,
  'migrate-store': MigrateStore,
  serve: Serve,
  watch: Watch,
  'tenant:create': TenantCreate,
  'org:create': OrgCreate,
  'org:list': OrgList,
  'org:show': OrgShow,
  'org:member:add': OrgMemberAdd,
  'org:member:list': OrgMemberList,
  'tenant:list': TenantList,
  'tenant:show': TenantShow,
  'tenant:update': TenantUpdate,
  'tenant:profile': TenantProfile,
  'tenant:attach': TenantAttach,
  'tenant:pause': TenantPause,
  'tenant:resume': TenantResume,
  'org:usage': OrgUsage,
  'key:create': KeyCreate,
  'key:list': KeyList,
  'key:revoke': KeyRevoke,
  'settings:list': SettingsList,
  'settings:get': SettingsGet,
  'settings:set': SettingsSet,
  'settings:unset': SettingsUnset,
  'cert:import': CertImport,
  'cert:list': CertList,
  'cert:show': CertShow,
  'cert:revoke': CertRevoke,
  doctor: Doctor,
  'sequence:add': SequenceAdd,
  'sequence:list': SequenceList,
  'sequence:annul': SequenceAnnul,
  'sequence:annul-retry': SequenceAnnulRetry,
  'sequence:annulments': SequenceAnnulments,
  issue: Issue,
  show: Show,
  list: List,
  xml: Xml,
  'webhook:list': WebhookList,
  'webhook:add': WebhookAdd,
  'webhook:remove': WebhookRemove,
  'webhook:deliveries': WebhookDeliveries,
  'webhook:retry': WebhookRetry,
  'webhook:ping': WebhookPing,
  pdf: Pdf,
  'received:list': ReceivedList,
  'received:show': ReceivedShow,
  'received:approve': ReceivedApprove,
  'received:reject': ReceivedReject,
  'certify:workbook': CertifyWorkbook,
  'certify:sign': CertifySign,
  'certify:receiver': CertifyReceiver,
  'certify:arrivals': CertifyArrivals,
  'certify:simulate': CertifySimulate,
  'certify:print': CertifyPrint,
  'certify:start': CertifyStart,
  'certify:import': CertifyImport,
  'certify:run': CertifyRun,
  'certify:status': CertifyStatus,
  'certify:uploads': CertifyUploads,
  'certify:mark': CertifyMark,
};
