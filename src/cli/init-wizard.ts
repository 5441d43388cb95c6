import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { confirm, input, password, select } from '@inquirer/prompts';
import { EngineError } from '../engine/errors.js';
import { TYPE_NAMES } from '../engine/documents/index.js';
import { Rnc, ENVIRONMENTS, type Environment } from '../engine/schema-types.js';
import { checkCertificateFile, rangeErrors, type FirstRunInput, type RangeSpec } from '../engine/setup/index.js';
import { PLANS } from '../engine/tenants/index.js';
import { fieldErrors, isCalendarDate } from '../engine/validation.js';

/**
 * The questions of `ecf init` on a terminal, one step at a time. Drawn on
 * `output` (stderr for the command, so stdout keeps only the result); tests
 * pass their own streams.
 */

export interface WizardStreams {
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

export interface WizardAnswers {
  readonly dataDir: string;
  readonly setup: FirstRunInput;
  readonly startSandbox: boolean;
}

const rncProblem = (v: string): string | true => {
  const errors = fieldErrors(Rnc(), v.trim());
  return errors.length === 0 ? true : `The RNC ${errors[0]!.message}`;
};

const required = (what: string) => (v: string) => (v.trim().length > 0 ? true : `${what} is required`);

const wholeNumber = (v: string): string | true => (/^\d{1,10}$/.test(v.trim()) && Number(v) >= 1 ? true : 'a whole number from 1 to 9999999999');

export async function askSetup(defaults: { dataDir: string }, streams: WizardStreams = {}): Promise<WizardAnswers> {
  const ctx = { ...(streams.input && { input: streams.input }), output: streams.output ?? process.stderr } as Parameters<typeof input>[1];
  const say = (line: string) => (streams.output ?? process.stderr).write(`${line}\n`);

  say('ecf first-run setup: a tenant ready to issue. Ctrl-C stops without changing anything.');
  const dataDir = resolve((await input({ message: 'Data directory', default: defaults.dataDir, validate: required('A directory') }, ctx)).trim());

  let organization: FirstRunInput['organization'];
  if (await confirm({ message: 'Group the tenant in an organization (an accounting office serving several taxpayers)?', default: false }, ctx)) {
    const name = (await input({ message: 'Organization name', validate: required('A name') }, ctx)).trim();
    const ownerName = (await input({ message: "Owner's name", validate: required('A name') }, ctx)).trim();
    const plan = await select(
      {
        message: 'Plan',
        choices: Object.entries(PLANS).map(([value, l]) => ({ value, name: `${value}: ${l.maxTenants} tenants, ${l.monthlyEcfQuota} e-CF a month` })),
      },
      ctx,
    );
    organization = { name, ownerName, plan };
  }

  const rnc = (await input({ message: 'Tenant RNC (9 digits) or cédula (11 digits)', validate: rncProblem }, ctx)).trim();
  const legalName = (await input({ message: 'Legal name (razón social)', validate: required('The legal name') }, ctx)).trim();
  const tradeName = (await input({ message: 'Trade name (optional)' }, ctx)).trim();
  const environment = await select<Environment>(
    {
      message: 'Environment',
      choices: ENVIRONMENTS.map((value) => ({
        value,
        name: { test: 'test: pre-certification (TesteCF)', cert: 'cert: certification (CerteCF)', production: 'production (eCF)' }[value],
      })),
      default: 'test',
    },
    ctx,
  );

  let certificate: FirstRunInput['certificate'];
  const certFile = (
    await input(
      {
        message: 'Signing certificate file (.p12/.pfx; empty to import it later with `ecf cert import`)',
        validate: (v) => (v.trim() === '' || (existsSync(v.trim()) && statSync(v.trim()).isFile()) ? true : `${v.trim()} is not a file`),
      },
      ctx,
    )
  ).trim();
  if (certFile !== '') {
    const file = readFileSync(certFile);
    const secret = await password(
      {
        message: 'Certificate password',
        mask: false,
        validate: (p) => {
          try {
            checkCertificateFile(file, p, new Date());
            return true;
          } catch (err) {
            return err instanceof EngineError ? `${err.message} [${err.code}]` : String(err);
          }
        },
      },
      ctx,
    );
    certificate = { file, password: secret };
  }

  const ranges: RangeSpec[] = [];
  let more = await confirm({ message: 'Add an authorized e-NCF range now?', default: true }, ctx);
  while (more) {
    const type = await select<number>(
      { message: 'e-CF type', choices: Object.entries(TYPE_NAMES).map(([t, name]) => ({ value: Number(t), name: `${t} ${name}` })) },
      ctx,
    );
    const from = Number(await input({ message: 'First number', default: '1', validate: wholeNumber }, ctx));
    const to = Number(
      await input({ message: 'Last number', validate: (v) => (wholeNumber(v) === true && Number(v) >= from ? true : `a whole number from ${from}`) }, ctx),
    );
    let expiresOn: string | null = null;
    if (type !== 32 && type !== 34) {
      expiresOn = (
        await input({ message: 'Expires on (YYYY-MM-DD, as the authorization says)', validate: (v) => (isCalendarDate(v.trim()) ? true : 'a date YYYY-MM-DD') }, ctx)
      ).trim();
    }
    const spec = { type, from, to, expiresOn };
    const problems = rangeErrors(spec);
    if (problems.length > 0) say(`  not added: ${problems.map((p) => p.message).join('; ')}`);
    else ranges.push(spec);
    more = await confirm({ message: 'Add another range?', default: false }, ctx);
  }

  const startSandbox = await confirm(
    { message: 'Start the server now with the built-in tax authority sandbox (to try issuing end to end)?', default: false },
    ctx,
  );
  return {
    dataDir,
    setup: { organization, tenant: { rnc, legalName, tradeName: tradeName || null }, environment, certificate, ranges },
    startSandbox,
  };
}
