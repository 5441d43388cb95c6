export { buildSandbox, startSandbox, type RunningSandbox, type StartSandboxOptions } from './app.js';
export {
  SANDBOX_ENVIRONMENTS,
  type DocumentFacts,
  type SandboxAnnulment,
  type SandboxControl,
  type SandboxEnvironment,
  type SandboxOptions,
  type SandboxStats,
  type SandboxSubmission,
  type SandboxVerdict,
  type DirectoryRecord,
  type ReceivedApproval,
  type SandboxTaxpayer,
} from './types.js';
export { SANDBOX_TAXPAYER_RNC, type ReceiverAnswer } from './taxpayer.js';
export { SANDBOX_STATUS_API_KEY, StatusCommandSchema, type SandboxStatusControl, type SandboxWindow, type StatusCommand } from './status-services.js';
export {
  AdminCommandSchema,
  LoadCommandSchema,
  OutcomeSchema,
  SANDBOX_CODES,
  ScriptSchema,
  type AdminCommand,
  type FinalOutcome,
  type SandboxMessage,
  type SandboxOutcome,
  type SandboxScript,
} from './outcomes.js';
export {
  LoadSchema,
  MAX_IN_FLIGHT,
  MAX_JITTER_MS,
  MAX_LATENCY_MS,
  NO_LOAD,
  OVERLOAD_STATUSES,
  SANDBOX_SERVICES,
  applyLoad,
  serviceOf,
  type OverloadStatus,
  type SandboxDelay,
  type SandboxLoad,
  type SandboxLoadInput,
  type SandboxService,
  type ServiceLatency,
} from './load.js';
