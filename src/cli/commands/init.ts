import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { readStdinLine, stdinIsTty } from '../prompts.js';
import { record } from '../render.js';
import { DATABASE_FILE, SECRET_KEY_FILE } from '../../engine/data-dir.js';
import { ensureSecretStoreKey } from '../../engine/secrets/index.js';
import { EngineError, ValidationError, type FieldError } from '../../engine/errors.js';
import { ENVIRONMENTS, type Environment } from '../../engine/schema-types.js';
import { firstRunSetup, parseRangeSpec, type FirstRunInput, type FirstRunOutcome, type RangeSpec } from '../../engine/setup/index.js';
import { migrationStatus } from '../../engine/store/index.js';
import { PLANS } from '../../engine/tenants/index.js';

/** Flags that describe a tenant to set up; without any of them `ecf init --yes` only prepares the data directory. */
const SETUP_FLAGS = ['rnc', 'legal-name', 'trade-name', 'org-name', 'owner-name', 'plan', 'env', 'cert', 'cert-password-stdin', 'range', 'sandbox'] as const;

export default class Init extends EcfCommand {
  static override description = [
    'Prepare a data directory (create it, create or migrate the database, create the secret-store key) and, on a terminal, set up the first tenant step by step:',
    'organization, tenant (RNC, legal name), environment, signing certificate and password, first e-NCF ranges, and whether to start the sandbox; the first API key is printed once.',
    'With --yes nothing is asked: `--yes` alone only prepares the data directory (as installers run it); `--yes --rnc ... --legal-name ...` sets up the tenant from the flags.',
    'Without a terminal and without --yes it stops with exit 2 instead of waiting. Safe to run again.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --data-dir /var/lib/ecf --yes',
    "printf '%s' \"$P12_PASSWORD\" | <%= config.bin %> init --yes --rnc 131234567 --legal-name 'Ferretería Ñoño SRL' --cert firma.p12 --cert-password-stdin --range 31:1-10000@2027-12-31 --range 32:1-50000",
  ];
  static override flags = {
    // Scripts and installers pass it so they never wait for an answer.
    yes: Flags.boolean({ description: 'Ask nothing: take the flags and the defaults' }),
    rnc: Flags.string({ description: "The tenant's RNC (9 digits) or cédula (11)", helpGroup: 'SETUP' }),
    'legal-name': Flags.string({ description: "The tenant's legal name (razón social)", helpGroup: 'SETUP' }),
    'trade-name': Flags.string({ description: "The tenant's trade name", helpGroup: 'SETUP' }),
    'org-name': Flags.string({ description: 'Put the tenant in this organization (made if there is none of that name)', helpGroup: 'SETUP' }),
    'owner-name': Flags.string({ description: "The organization owner's name (default: the legal name)", helpGroup: 'SETUP' }),
    plan: Flags.string({ description: "The organization's plan", options: Object.keys(PLANS), default: 'solo', helpGroup: 'SETUP' }),
    env: Flags.string({ description: "The tenant's default environment", options: [...ENVIRONMENTS], default: 'test', helpGroup: 'SETUP' }),
    cert: Flags.string({ description: 'Signing certificate file (.p12/.pfx); its password from --cert-password-stdin or $ECF_CERT_PASSWORD', helpGroup: 'SETUP' }),
    'cert-password-stdin': Flags.boolean({ description: 'Read the certificate password from stdin', helpGroup: 'SETUP' }),
    range: Flags.string({
      description: 'An authorized e-NCF range in the environment, TYPE:FROM-TO@YYYY-MM-DD (no @date for 32 and 34); repeat for more',
      multiple: true,
      helpValue: '31:1-10000@2027-12-31',
      helpGroup: 'SETUP',
    }),
    sandbox: Flags.boolean({ description: 'When done, start `ecf serve --sandbox` (the API and jobs, with the built-in tax authority sandbox)', helpGroup: 'SETUP' }),
  };

  async run() {
    const { flags } = await this.parse(Init);
    const setupFlags = SETUP_FLAGS.filter((f) => flags[f] !== undefined && flags[f] !== false && !(f === 'plan' && flags.plan === 'solo') && !(f === 'env' && flags.env === 'test'));
    let dataDir = this.dataDir(flags);
    let setup: FirstRunInput | undefined;
    let startSandbox = flags.sandbox;
    const answerFlags = setupFlags.filter((f) => f !== 'sandbox');
    if (!flags.yes) {
      if (setupFlags.length > 0) {
        throw new EngineError('validation', 'Init.FlagsNeedYes', `--${setupFlags.join(', --')} answer the questions; pass --yes with them, or leave them out to be asked.`);
      }
      if (!stdinIsTty()) {
        throw new EngineError(
          'validation',
          'Init.NeedsTerminal',
          'ecf init asks its questions on a terminal, and stdin is not one. Run it with --yes: alone to only prepare the data directory, or with --rnc, --legal-name, --cert, --range ... to set up a tenant.',
        );
      }
      let answers;
      try {
        // Loaded here, not at the top: every command's module is loaded on each start of `ecf`.
        answers = await (await import('../init-wizard.js')).askSetup({ dataDir });
      } catch (err) {
        // Ctrl-C: nothing was written yet.
        if (err instanceof Error && err.name === 'ExitPromptError') Errors.exit(130);
        throw err;
      }
      dataDir = answers.dataDir;
      setup = answers.setup;
      startSandbox = answers.startSandbox;
    } else if (answerFlags.length > 0) {
      setup = await this.setupFromFlags(flags);
    }

    const existed = existsSync(join(dataDir, DATABASE_FILE));
    const engine = await this.engine({ 'data-dir': dataDir });
    const secretKeyCreated = ensureSecretStoreKey(dataDir);
    const prepared = {
      dataDir,
      database: join(dataDir, DATABASE_FILE),
      databaseCreated: !existed,
      secretStoreKey: join(dataDir, SECRET_KEY_FILE),
      secretStoreKeyCreated: secretKeyCreated,
      migrations: await migrationStatus(engine.db),
    };
    this.log(record({ ...prepared, migrations: prepared.migrations.map((m) => m.name).join(', ') }));
    if (!setup) {
      if (startSandbox) {
        await this.config.runCommand('serve', ['--sandbox', '--data-dir', dataDir]);
      }
      return prepared;
    }

    const outcome = await firstRunSetup(engine, setup);
    this.log('');
    this.log(this.describe(outcome));
    const result = { ...prepared, setup: outcome };
    if (startSandbox) {
      // The server takes over the terminal until Ctrl-C; the setup above is already saved.
      await this.config.runCommand('serve', ['--sandbox', '--data-dir', dataDir]);
    }
    return result;
  }

  private async setupFromFlags(flags: {
    rnc?: string | undefined;
    'legal-name'?: string | undefined;
    'trade-name'?: string | undefined;
    'org-name'?: string | undefined;
    'owner-name'?: string | undefined;
    plan: string;
    env: string;
    cert?: string | undefined;
    'cert-password-stdin'?: boolean;
    range?: string[] | undefined;
  }): Promise<FirstRunInput> {
    const errors: FieldError[] = [];
    if (!flags.rnc) errors.push({ path: 'rnc', code: 'ObjectRequiredProperty', message: 'is required to set up a tenant (--rnc)' });
    if (!flags['legal-name']) errors.push({ path: 'legalName', code: 'ObjectRequiredProperty', message: 'is required to set up a tenant (--legal-name)' });
    const ranges: RangeSpec[] = [];
    for (const [i, text] of (flags.range ?? []).entries()) {
      try {
        ranges.push(parseRangeSpec(text, `range[${i}]`));
      } catch (err) {
        if (err instanceof ValidationError) errors.push(...err.errors);
        else throw err;
      }
    }
    let certificate: FirstRunInput['certificate'];
    if (flags.cert) {
      let password: string | undefined;
      if (flags['cert-password-stdin']) password = await readStdinLine();
      else password = process.env.ECF_CERT_PASSWORD;
      if (password === undefined) errors.push({ path: 'certPassword', code: 'ObjectRequiredProperty', message: 'is required with --cert: pipe it with --cert-password-stdin or set ECF_CERT_PASSWORD' });
      let file: Buffer | undefined;
      try {
        file = readFileSync(flags.cert);
      } catch (err) {
        errors.push({ path: 'cert', code: 'Setup.CertificateUnreadable', message: `cannot read ${flags.cert} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
      }
      if (file && password !== undefined) certificate = { file, password };
    }
    if (errors.length > 0) throw new ValidationError(errors, 'The setup flags are incomplete or invalid.');
    return {
      ...(flags['org-name'] && { organization: { name: flags['org-name'], ownerName: flags['owner-name'] ?? flags['legal-name']!, plan: flags.plan } }),
      tenant: { rnc: flags.rnc!, legalName: flags['legal-name']!, tradeName: flags['trade-name'] ?? null },
      environment: flags.env as Environment,
      certificate,
      ranges,
    };
  }

  private describe(o: FirstRunOutcome): string {
    const lines = [
      ...(o.organization ? [`organization  ${o.organization.name} (${o.organization.plan}) ${o.organization.id}`] : []),
      `tenant        ${o.tenant.rnc} ${o.tenant.legalName} ${o.tenant.id}${o.tenantCreated ? '' : ' (already there)'}`,
      `environment   ${o.tenant.defaultEnvironment}`,
      `certificate   ${o.certificate ? `${o.certificate.subject.commonName ?? o.certificate.subject.text}, valid to ${o.certificate.notAfter}` : 'none yet: ecf cert import FILE'}`,
      ...(o.ranges.length > 0
        ? o.ranges.map((r, i) => `${i === 0 ? 'e-NCF ranges ' : '             '} ${r.type} ${r.rangeFrom}-${r.rangeTo}${r.expiresOn ? ` until ${r.expiresOn}` : ''}`)
        : ['e-NCF ranges  none yet: ecf sequence add']),
      '',
      `API key (admin_tenant), shown only now; keep it:`,
      `  ${o.apiKey.key}`,
    ];
    return lines.join('\n');
  }
}
