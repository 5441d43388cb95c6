import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { loadCases } from '../../../src/engine/certification/cases.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { cliFor } from '../../cli-runner.js';
import { seedIssuer, tempDir, testDataDir } from '../../helpers.js';

/**
 * The trial's flow of issue 32 point 1, through the built `ecf` against the
 * built-in sandbox over loopback: a Paso 2 run whose RFCE are accepted, then
 * a note rejected (614); the workbook imported again and run to the end; then
 * `ecf certify uploads` must hand out the bytes whose security codes went into
 * the accepted RFCE, the portal's box (the sandbox) takes all four, and
 * `ecf certify status` counts what the portal counts.
 */

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const signedFile = (dir: string) => readdirSync(dir).map((f) => ({ f, bytes: readFileSync(join(dir, f)) }));

describe('a late Paso 2 reset, to the uploads (the built binary)', { timeout: 400_000 }, () => {
  it('keeps the consumo e-CF 32 bound to the accepted RFCE across the new generation, and the portal takes the files', async () => {
    sandbox = await startSandbox();
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    ensureSecretStoreKey(dataDir);
    const { tenant } = await seedIssuer(engine);
    await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
    await setSetting(engine, 'taxauth.fc_url.cert', `${sandbox.url}/certecf`);
    await engine.close();
    const { ecf, json } = cliFor(dataDir);
    const out = tempDir();
    const base = `${sandbox.url}/_sandbox/certification/${tenant.rnc}`;
    const portal = async () => (await (await fetch(base)).json()) as { paso2: { done: boolean; ecf: { accepted: number; total: number }; rfce: { accepted: number; total: number }; consumo: { accepted: number; total: number } } };

    await json(['certify', 'start']);
    await json(['certify', 'workbook', '--paso', '2', '--out', join(out, 'paso2.xlsx'), '--variant', 'full']);
    expect(await json(['certify', 'import', join(out, 'paso2.xlsx')])).toMatchObject({ generation: 1, uploads: 4, kept: [] });

    // The note the authority will refuse with 614 once every RFCE is accepted.
    const reader = await openEngine({ dataDir });
    const firstCases = await loadCases(reader, tenant.id, 2);
    await reader.close();
    const note = firstCases.find((c) => c.phase === 'note')!;
    sandbox.control.script({ encf: note.encf, outcomes: [{ kind: 'reject', messages: [{ code: 614, value: 'El eNCF modificado no ha sido emitido' }] }] });
    const stopped = await json(['certify', 'run'], undefined, 4);
    expect(stopped).toMatchObject({ outcome: 'stopped', counts: { rfce: { accepted: 4, total: 4 } }, rejected: [{ encf: note.encf }] });
    expect((await portal()).paso2.rfce.accepted).toBe(4);
    const early = await ecf(['certify', 'uploads', '--out', join(out, 'early')]);
    expect(early.code).toBe(0); // every RFCE is accepted: these are the files the portal would take now
    const boundBytes = signedFile(join(out, 'early'));

    // The reset: import the workbook again and run the set to the end.
    const again = await json(['certify', 'import', join(out, 'paso2.xlsx')]);
    expect(again).toMatchObject({ generation: 2 });
    expect([...again.kept].sort()).toEqual(firstCases.filter((c) => c.kind === 'rfce').map((c) => c.encf).sort());
    const done = await json(['certify', 'run']);
    expect(done).toMatchObject({ outcome: 'done', rejected: [] });

    const written = await json(['certify', 'uploads', '--out', join(out, 'consumo')]);
    expect(written.files).toHaveLength(4);
    const files = signedFile(join(out, 'consumo'));
    expect(files.map((x) => x.f).sort()).toEqual(boundBytes.map((x) => x.f).sort());
    for (const { f, bytes } of files) {
      expect(bytes.equals(boundBytes.find((x) => x.f === f)!.bytes), f).toBe(true);
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'text/xml' }), f);
      const answer = (await (await fetch(`${base}/consumo`, { method: 'POST', body: form })).json()) as { accepted: boolean; messages: string[] };
      expect(answer, f).toMatchObject({ accepted: true, messages: [] });
    }

    const p = (await portal()).paso2;
    expect(p).toMatchObject({ done: true, ecf: { accepted: 21, total: 21 }, rfce: { accepted: 4, total: 4 }, consumo: { accepted: 4, total: 4 } });
    const status = await json(['certify', 'status']);
    expect(status.counts).toMatchObject({ ecf: { accepted: p.ecf.accepted, total: p.ecf.total }, rfce: { accepted: p.rfce.accepted, total: p.rfce.total }, uploads: p.consumo.total });
    expect(status.pasos.find((x: { paso: number }) => x.paso === 2)).toMatchObject({ state: 'done' });
  });
});
