export {
  buildSandbox,
  startSandbox,
  SANDBOX_ENVIRONMENTS,
  type DocumentFacts,
  type RunningSandbox,
  type SandboxControl,
  type SandboxEnvironment,
  type SandboxOptions,
  type SandboxStats,
  type SandboxSubmission,
  type SandboxVerdict,
  type StartSandboxOptions,
  type DirectoryRecord,
  type ReceivedApproval,
  type SandboxTaxpayer,
} from './app.js';
export { SANDBOX_TAXPAYER_RNC, type ReceiverAnswer } from './taxpayer.js';
export {
  AdminCommandSchema,
  OutcomeSchema,
  SANDBOX_CODES,
  ScriptSchema,
  type AdminCommand,
  type FinalOutcome,
  type SandboxMessage,
  type SandboxOutcome,
  type SandboxScript,
} from './outcomes.js';
