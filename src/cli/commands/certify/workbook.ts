import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { EngineError } from '../../../engine/errors.js';
import { ENVIRONMENT_SEGMENT } from '../../../engine/taxauth/index.js';

/**
 * The built-in sandbox's Paso 2 or Paso 3 workbook for the tenant's RNC,
 * from the sandbox the tenant's `cert` environment points to. Against the
 * tax authority the workbooks come only from its portal (DESCARGAR
 * COMPROBANTES / DESCARGAR APROBACIONES COMERCIALES), so the command refuses.
 */
export default class CertifyWorkbook extends EcfCommand {
  static override description =
    "Download the built-in sandbox's certification workbook (Paso 2 e-CF set or Paso 3 approvals) for the tenant's RNC; the sandbox makes the set on first use";
  static override examples = [
    '<%= config.bin %> certify workbook --paso 2 --out set-ecf.xlsx',
    '<%= config.bin %> certify workbook --paso 3 --out set-acecf.xlsx --variant section8',
  ];
  static override flags = {
    tenant: tenantFlag,
    paso: Flags.string({ required: true, options: ['2', '3'], description: '2: the e-CF set (sheets ECF and RFCE); 3: the commercial approvals (ACEECF_Generadas)' }),
    out: Flags.string({ required: true, description: 'Where to write the .xlsx' }),
    variant: Flags.string({
      options: ['section8', 'full'],
      description: "The set's size: section8 (8 cases, CERTIFICATION.md §8) or full (25 + 4 RFCE + 11 approvals, like DGII's). A different variant than the sandbox holds makes a new set (its progress starts over); default: the set the sandbox holds, else full",
    }),
  };

  async run() {
    const { flags } = await this.parse(CertifyWorkbook);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const { baseUrl } = await engine.taxauth.settings('cert');
    const root = sandboxRoot(baseUrl);
    const setUrl = `${root}/_sandbox/certification/${tenant.rnc}`;

    const progress = await call(setUrl, 'GET', root, baseUrl);
    let variant = (progress.body as { variant?: string } | null)?.variant;
    let started = false;
    if (progress.status === 404 || (flags.variant && flags.variant !== variant)) {
      const made = await call(`${setUrl}/start`, 'POST', root, baseUrl, { variant: flags.variant ?? 'full' });
      if (made.status !== 201) throw unavailable(`The sandbox at ${root} did not make a certification set: HTTP ${made.status} ${JSON.stringify(made.body)}`);
      variant = flags.variant ?? 'full';
      started = true;
    } else if (progress.status !== 200) {
      throw unavailable(`The sandbox at ${root} answered HTTP ${progress.status} for ${setUrl}: ${JSON.stringify(progress.body)}`);
    }

    const paso = Number(flags.paso) as 2 | 3;
    const res = await fetchOrExplain(`${setUrl}/paso${paso}.xlsx`, { method: 'GET' }, root, baseUrl);
    if (res.status !== 200) throw unavailable(`The sandbox at ${root} answered HTTP ${res.status} for the Paso ${paso} workbook: ${await res.text()}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const file = resolve(flags.out);
    await writeFile(file, bytes);
    const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
    const result = { tenant: tenant.id, rnc: tenant.rnc, paso, variant: variant ?? null, newSet: started, file, bytes: bytes.length, sandboxFileName: fileName, sandbox: root };
    this.log(record(result));
    return result;
  }
}

const unavailable = (message: string) => new EngineError('unavailable', 'Certification.SandboxUnavailable', message);

/**
 * The sandbox's root from the cert environment's URL (`{sandbox}/certecf`);
 * a URL of the tax authority, or one not ending in the cert segment, is refused.
 */
export function sandboxRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (/(^|\.)dgii\.gov\.do$/i.test(url.hostname)) {
    throw new EngineError(
      'conflict',
      'Certification.NotSandbox',
      `The tenant's cert environment is the tax authority (${baseUrl}), not the built-in sandbox: download the workbooks in the certification portal (Paso 2 "DESCARGAR COMPROBANTES", Paso 3 "DESCARGAR APROBACIONES COMERCIALES"). ` +
        'To practise against the sandbox, point taxauth.url.cert and taxauth.fc_url.cert at {sandbox}/certecf (or run `ecf serve --sandbox`).',
    );
  }
  const segment = `/${ENVIRONMENT_SEGMENT.cert}`;
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.toLowerCase().endsWith(segment)) {
    throw new EngineError('conflict', 'Certification.NotSandbox', `The tenant's cert environment (${baseUrl}) does not end in ${segment}, so it is not the built-in sandbox's cert environment.`);
  }
  return `${url.origin}${path.slice(0, -segment.length)}`;
}

async function fetchOrExplain(url: string, init: RequestInit, root: string, baseUrl: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw unavailable(`The sandbox at ${root} (from the cert environment ${baseUrl}) cannot be reached: ${(e as Error).cause ?? (e as Error).message}. Start it with \`ecf sandbox\` or \`ecf serve --sandbox\`.`);
  }
}

/** A JSON call to the sandbox's control routes; anything but JSON means it is not the built-in sandbox. */
async function call(url: string, method: 'GET' | 'POST', root: string, baseUrl: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetchOrExplain(url, { method, ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) }, root, baseUrl);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new EngineError(
      'conflict',
      'Certification.NotSandbox',
      `${root} (the tenant's cert environment ${baseUrl}) is not the built-in sandbox: ${url} answered HTTP ${res.status} without JSON.`,
    );
  }
}
