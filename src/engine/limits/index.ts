// The door of engine/limits: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { evaluateAlerts } from './alerts.js';
export {
  EmissionStateView,
  PauseBody,
  ResumeBody,
  emissionState,
  organizationEmissionStates,
  pauseEmission,
  pauseOwnEmission,
  resumeEmission,
  resumeOwnEmission,
  type PauseScope,
} from './pause.js';
export { evaluateUsage, organizationUsage } from './usage.js';
