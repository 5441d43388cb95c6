// Writes oclif.manifest.json from the bundled commands (dist/bundle/cli/commands), as
// `oclif manifest` would. With it, `ecf --version` and `ecf --help` read one
// JSON file instead of loading every command module, and `ecf issue` loads
// only the issue command's modules. `npm run build` runs this after tsc; a
// manifest older than the build would hide new commands, so never skip it.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
const count = Object.keys(plugin.manifest.commands).length;
if (count === 0) throw new Error('no commands found under dist/bundle/cli/commands: build first (npm run build)');
await writeFile(new URL('../oclif.manifest.json', import.meta.url), `${JSON.stringify(plugin.manifest)}\n`);
console.log(`oclif.manifest.json: ${count} commands`);
