import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { retryEcf } from '../../../src/engine/submission/retry.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { decideCommercialApproval } from '../../../src/engine/reception/approve.js';
import { receiveInboundApproval } from '../../../src/engine/reception/receive.js';
import { listCertificates, revokeCertificate } from '../../../src/engine/certificates/certificates.js';
import { createTenantApiKey, createOrganizationApiKey, revokeApiKey } from '../../../src/engine/tenants/api-keys.js';
import { setSetting, unsetSetting } from '../../../src/engine/settings/settings.js';
import { harness } from '../submission/harness.js';
import { receptionHarness } from '../reception/harness.js';
import { invoice31, seedIssuer, seedOrganization, testEngine } from '../../helpers.js';
import { wholeJournal } from './journal-tools.js';

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe('journal entries at each change of record', () => {
  it('records every status change and verdict of an e-CF: submitted with its trackId, rejected with codes, retried, accepted', async () => {
    const h = await harness();
    const ecf = await h.issue(invoice31());
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'reject', sequenceUsed: false, messages: [{ code: 1002, value: 'Firma inválida' }] }] });
    await h.drive();
    await retryEcf(h.engine, h.tenant.id, ecf.id);
    await h.drive();
    const key = (await h.engine.db.selectFrom('ecf').select('store_key').where('id', '=', ecf.id).executeTakeFirstOrThrow()).store_key;
    const mine = (await wholeJournal(h.engine, h.tenant.id)).filter((e) => e.ecfKey === key);
    const tracks = (await h.engine.db.selectFrom('ecf_attempts').select('track_id').where('ecf_key', '=', key).orderBy('attempt').execute()).map((a) => a.track_id);
    expect(mine.map((e) => [e.kind, e.data])).toEqual([
      ['ecf.issued', null],
      ['ecf.status', `submitted track=${tracks[0]}`],
      ['ecf.status', 'rejected code=2 msgs=1002'],
      ['ecf.status', 'signed'],
      ...(tracks[1] === tracks[0] ? [] : [['ecf.status', `submitted track=${tracks[1]}`]]),
      ['ecf.status', 'accepted code=1'],
    ]);
  });

  it('records a transient rejection resent by itself with its codes, though the status stays submitted', async () => {
    const h = await harness();
    const ecf = await h.issue(invoice31());
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'transientReject' }, { kind: 'accept' }] });
    await h.drive();
    const key = (await h.engine.db.selectFrom('ecf').select('store_key').where('id', '=', ecf.id).executeTakeFirstOrThrow()).store_key;
    const data = (await wholeJournal(h.engine, h.tenant.id)).filter((e) => e.ecfKey === key && e.kind === 'ecf.status').map((e) => e.data);
    expect(data[1]).toBe('submitted code=2 msgs=9001');
    expect(data.at(-1)).toBe('accepted code=1');
  });

  it('records an annulment with the digest of its signed ANECF and its ranges', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const annulment = await annulSequences(engine, tenant.id, { environment: 'test', reason: 'Talonario dañado', lines: [{ type: 31, series: 'E', rangeFrom: 5, rangeTo: 6 }, { type: 34, series: 'E', rangeFrom: 990, rangeTo: 1000 }] });
    const row = await engine.db.selectFrom('annulments').select('xml_sha256').where('id', '=', annulment.id).executeTakeFirstOrThrow();
    const entry = (await wholeJournal(engine, tenant.id)).find((e) => e.kind === 'annulment.recorded');
    expect(entry).toMatchObject({ ref: annulment.id, digest: row.xml_sha256, data: 'E31:5-6,E34:990-1000' });
  });

  it('records a received e-CF with the digest of its bytes, its ARECF, the ACECF the tenant signs, and an ACECF received for its own e-CF', async () => {
    const h = await receptionHarness();
    const sent = await h.sendFresh();
    const received = await h.engine.db.selectFrom('received_ecf').select(['id', 'arecf_sha256']).executeTakeFirstOrThrow();
    await decideCommercialApproval(h.engine, h.tenant.id, received.id, { decision: 'rejected', rejectionReason: 'Mercancía dañada' });
    const answer = await h.engine.db.selectFrom('received_ecf_approvals').select('xml_sha256').executeTakeFirstOrThrow();

    const own = await h.issue(invoice31());
    const acecf = Buffer.from(h.sandbox.control.taxpayer.makeApproval({ issuerRnc: h.tenant.rnc, encf: own.encf, issueDate: own.issueDate, montoTotal: own.montoTotal.toFixed(2), decision: 'accepted' }));
    await receiveInboundApproval(h.engine, h.tenant.id, { xml: acecf });
    const ownKey = (await h.engine.db.selectFrom('ecf').select('store_key').where('id', '=', own.id).executeTakeFirstOrThrow()).store_key;

    const entries = await wholeJournal(h.engine, h.tenant.id);
    expect(entries.filter((e) => e.kind.startsWith('received.') || e.kind === 'approval.received').map(({ kind, ref, ecfKey, digest, data }) => ({ kind, ref, ecfKey, digest, data }))).toEqual([
      { kind: 'received.stored', ref: received.id, ecfKey: null, digest: sha(sent.xml), data: 'received' },
      { kind: 'received.answered', ref: received.id, ecfKey: null, digest: received.arecf_sha256!.toString('hex'), data: 'ARECF' },
      { kind: 'received.answered', ref: received.id, ecfKey: null, digest: answer.xml_sha256, data: 'ACECF rejected' },
      { kind: 'approval.received', ref: null, ecfKey: ownKey, digest: sha(acecf), data: 'accepted' },
    ]);
  });

  it('records the tenant first, then certificates imported and revoked, API keys created and revoked (never the secret), tenant settings changed', async () => {
    const engine = await testEngine();
    const org = await seedOrganization(engine);
    const { tenant } = await seedIssuer(engine, { organizationId: org.organization.id });
    const [certificate] = await listCertificates(engine, tenant.id);
    await revokeCertificate(engine, tenant.id, certificate!.id);
    const made = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'consultor' });
    await revokeApiKey(engine, made.apiKey.id);
    // An organization's key is not the tenant's record.
    const orgKey = await createOrganizationApiKey(engine, { organizationId: org.organization.id, memberId: org.owner.id });
    await revokeApiKey(engine, orgKey.apiKey.id);
    await setSetting(engine, 'retry.max', 3, tenant.id);
    await setSetting(engine, 'retry.max', 4); // the platform's: not a tenant's record
    await unsetSetting(engine, 'retry.max', tenant.id);

    const entries = await wholeJournal(engine, tenant.id);
    expect(entries[0]).toMatchObject({ seq: 1, kind: 'tenant.created', data: tenant.rnc });
    const fingerprint = certificate!.fingerprintSha256.replace(/:/g, '').toLowerCase();
    const rest = entries.filter((e) => !['tenant.created'].includes(e.kind)).map(({ kind, ref, digest, data }) => ({ kind, ref, digest, data }));
    const seeded = await engine.db.selectFrom('api_keys').select(['id', 'role']).where('tenant_id', '=', tenant.id).where('id', '<>', made.apiKey.id).execute();
    expect(seeded).toHaveLength(3);
    expect(rest.slice(0, 3)).toEqual(expect.arrayContaining(seeded.map((k) => ({ kind: 'api_key.created', ref: k.id, digest: null, data: k.role }))));
    expect(rest.slice(3)).toEqual([
      { kind: 'certificate.imported', ref: certificate!.id, digest: fingerprint, data: certificate!.serialNumber },
      { kind: 'certificate.revoked', ref: certificate!.id, digest: fingerprint, data: certificate!.serialNumber },
      { kind: 'api_key.created', ref: made.apiKey.id, digest: null, data: 'consultor' },
      { kind: 'api_key.revoked', ref: made.apiKey.id, digest: null, data: 'consultor' },
      { kind: 'settings.changed', ref: 'retry.max', digest: null, data: '3' },
      { kind: 'settings.changed', ref: 'retry.max', digest: null, data: null },
    ]);
    expect(JSON.stringify(entries)).not.toContain(made.key);
  });
});
