import { describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { openEngine } from '../../../src/engine/engine.js';
import { cliFor } from '../../cli-runner.js';
import { testDataDir } from '../../helpers.js';

const SLOW = 180_000;

describe('ecf tenant pause|resume and ecf org usage (the built binary)', () => {
  it(
    'pauses and resumes a tenant and an organization, and shows the usage of the period',
    async () => {
      const dataDir = testDataDir();
      const { json, ecf } = cliFor(dataDir);
      const { organization } = await json(['org', 'create', '--name', 'Contadores Unidos', '--plan', 'solo', '--owner-name', 'Ana Pérez']);
      const tenant = await json(['tenant', 'create', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL', '--org', organization.id]);

      const paused = await json(['tenant', 'pause', tenant.rnc, '--reason', 'Pago pendiente', '--until', '2099-01-01T08:00:00-04:00']);
      expect(paused).toMatchObject({ tenantId: tenant.id, paused: true, source: 'tenant', reason: 'Pago pendiente', until: '2099-01-01T08:00:00.000-04:00', changedBy: 'operator' });
      const byOrg = await json(['tenant', 'pause', '--org', organization.id, '--reason', 'Factura vencida']);
      expect(byOrg).toEqual([expect.objectContaining({ tenantId: tenant.id, paused: true, source: 'organization' })]);
      expect(await json(['tenant', 'resume', '--org', organization.id])).toEqual([expect.objectContaining({ paused: true, source: 'tenant' })]);
      expect(await json(['tenant', 'resume', tenant.id, '--reason', 'Pago recibido'])).toMatchObject({ paused: false });

      const past = await ecf(['tenant', 'pause', tenant.id, '--until', '2000-01-01T00:00:00Z']);
      expect(past.code).toBe(2);
      expect(past.stderr).toContain('Emission.UntilInPast');

      const usage = await json(['org', 'usage', organization.id]);
      expect(usage).toMatchObject({ organizationId: organization.id, closed: false, ecf: { used: 0, limit: 2000 }, tenants: { used: 1, limit: 1, current: 1 }, members: { used: 1, limit: 2 } });
      expect(usage.period).toMatch(/^\d{4}-\d{2}$/);

      const engine = await openEngine({ dataDir });
      try {
        const types = (await listEvents(engine.db)).filter((e) => e.type.startsWith('tenant.emission')).map((e) => e.type);
        expect(types).toEqual(['tenant.emission_paused', 'tenant.emission_resumed']);
      } finally {
        await engine.close();
      }
    },
    SLOW,
  );
});
