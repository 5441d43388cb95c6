// The door of engine/settings: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { getSetting, listSettings, parseSettingText, setSetting, settingView, unsetSetting } from './settings.js';
