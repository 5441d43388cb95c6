import { describe, expect, it } from 'vitest';
import { uploadCertificate } from '../../../src/engine/certificates/certificates.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import type { ValidationError } from '../../../src/engine/errors.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { addRange, allocate, listRanges } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { invoice31, seedTenant, testEngine } from '../../helpers.js';
import { makeIdentity, makeP12 } from '../../certs.js';
import { annulHarness, expectValidAnecf, line, storedAnecf } from './tools.js';

const rejection = async (work: Promise<unknown>) => {
  const e = (await work.then(
    () => {
      throw new Error('expected a ValidationError; the annulment went through');
    },
    (err: unknown) => err,
  )) as ValidationError;
  expect(e).toMatchObject({ kind: 'validation', code: 'Validation.Failed' });
  return e.errors.map((x) => [x.path, x.code]);
};

describe('annulment validation: every problem at once, nothing discarded', () => {
  it('reports bounds, order, ranges, series, overlaps, used, annulled and issued numbers, other environments, in one answer', async () => {
    const h = await annulHarness();
    await addRange(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: 45, rangeFrom: 2001, rangeTo: 3000, expiresOn: '2035-12-31' });
    // 33: E33…1–3 handed out by the allocator. 34: 500–600 annulled already. 31: E31…700 issued with an external e-NCF.
    for (let i = 0; i < 3; i++) await allocate(h.engine, h.tenant.id, { environment: 'test', type: 33 });
    await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'previa', lines: [line(34, 500, 600)] });
    await setSetting(h.engine, 'sequences.mode', 'external', h.tenant.id);
    await issueEcf(h.engine, h.tenant.id, {
      idempotencyKey: 'ext',
      payload: invoice31({ encf: 'E310000000700', sequenceExpiresOn: '2035-12-31' }),
    });
    await setSetting(h.engine, 'sequences.mode', 'managed', h.tenant.id);
    const rangesBefore = await listRanges(h.engine, h.tenant.id);
    const sentBefore = h.sandbox.control.annulments().length;

    const lines = [
      line(31, 0, 5), // 0: below 1
      line(31, 9, 8), // 1: reversed
      line(32, 995, 1005), // 2: past the end of 1–1000
      line(31, 20, 30, 'F'), // 3: no F series range
      line(43, 10, 20), // 4
      line(43, 20, 25), // 5: overlaps 4
      line(33, 2, 10), // 6: 2 and 3 handed out
      line(34, 550, 650), // 7: 550–600 annulled already
      line(31, 690, 710), // 8: E31…700 issued
      line(45, 2001, 2010), // 9: 2001–3000 is a cert range; test has 1–1000
      line(31, 10_000_000_000, 10_000_000_001), // 10: beyond ten digits
      line(46, 100, 200), // 11: fine on its own
    ];
    const errors = await rejection(annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'cierre', lines }));
    expect(errors.sort()).toEqual(
      [
        ['lines[0].rangeFrom', 'Sequence.OutOfBounds'],
        ['lines[1].rangeTo', 'Sequence.Reversed'],
        ['lines[2]', 'Annulment.OutsideRange'],
        ['lines[3]', 'Annulment.OutsideRange'],
        ['lines[5]', 'Annulment.LinesOverlap'],
        ['lines[6].rangeFrom', 'Annulment.NumbersUsed'],
        ['lines[7]', 'Annulment.AlreadyAnnulled'],
        ['lines[8]', 'Annulment.NumbersUsed'],
        ['lines[9]', 'Annulment.OutsideRange'],
        ['lines[10].rangeFrom', 'Sequence.OutOfBounds'],
        ['lines[10].rangeTo', 'Sequence.OutOfBounds'],
      ].sort(),
    );
    expect(await listRanges(h.engine, h.tenant.id)).toEqual(rangesBefore);
    expect(await h.engine.db.selectFrom('annulments').select('id').execute()).toHaveLength(1);
    expect(h.sandbox.control.annulments()).toHaveLength(sentBefore);
  });

  it('says which number was used and where the never-used numbers start; a line over annulled and allocated numbers gets both', async () => {
    const h = await annulHarness();
    await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'a', lines: [line(31, 1, 3)] });
    await allocate(h.engine, h.tenant.id, { environment: 'test', type: 31 }); // E31…4
    const e = await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'b', lines: [line(31, 2, 9), line(32, 1, 1000), line(32, 5, 5)] }).catch((x: ValidationError) => x);
    expect((e as ValidationError).errors).toEqual([
      { path: 'lines[2]', code: 'Annulment.LinesOverlap', message: 'E320000000005–E320000000005 overlaps lines[1] (E320000000001–E320000001000)' },
      {
        path: 'lines[0]',
        code: 'Annulment.AlreadyAnnulled',
        message: expect.stringMatching(/^E310000000002–E310000000009 overlaps numbers annulled already \(E310000000001–E310000000003, annulment [0-9a-f-]{36}\)$/),
      },
      { path: 'lines[0].rangeFrom', code: 'Annulment.NumbersUsed', message: 'E310000000004 was already handed out (allocated or issued); the first never-used number of the range is 5' },
    ]);
  });

  it('holds an ANECF to its schema’s limits: 10,000 ranges of one type pass (and make a valid, signed ANECF), 10,001 do not', async () => {
    // The sandbox verifies a 1 MB document the way the authority would, which takes seconds.
    const h = await annulHarness({ timeoutMs: 30_000 });
    const singles = (from: number, n: number) => Array.from({ length: n }, (_, i) => line(31, from + 2 * i, from + 2 * i));
    const errors = await rejection(annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'x', lines: singles(1001, 10_001) }));
    expect(errors).toEqual([['lines', 'Annulment.TooManyLines']]);

    const record = await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'x', lines: [...singles(1001, 10_000), line(32, 1, 1)] });
    expect(record).toMatchObject({ status: 'voided', totalCount: 10_001 });
    const { xml } = await storedAnecf(h.engine, record.id);
    expect(xml.match(/<Secuencias>/g)).toHaveLength(10_001);
    await expectValidAnecf(h.engine, h.tenant.id, xml);
  }, 90_000);

  it('refuses more numbers than CantidadeNCFAnulados can count (ten digits)', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    for (const type of [31, 33]) {
      await addRange(engine, { tenantId: tenant.id, environment: 'test', type, rangeFrom: 1, rangeTo: 9_999_999_999, expiresOn: '2035-12-31' });
    }
    const errors = await rejection(
      annulSequences(engine, tenant.id, { environment: 'test', reason: 'x', lines: [line(31, 1, 9_999_999_999), line(33, 1, 9_999_999_999)] }),
    );
    expect(errors).toEqual([['lines', 'Annulment.TooManyNumbers']]);
  });

  it('checks the body’s shape first, naming each field and rule', async () => {
    const h = await annulHarness();
    const errors = await rejection(
      annulSequences(h.engine, h.tenant.id, {
        environment: 'staging',
        reason: '  ',
        lines: [{ type: 30, series: 'e', rangeFrom: 'uno', rangeTo: 2, extra: true }, { type: 31 }],
      }),
    );
    expect(errors.sort()).toEqual(
      [
        ['environment', 'Union'],
        ['reason', 'StringPattern'],
        ['lines[0].type', 'Union'],
        ['lines[0].series', 'StringPattern'],
        ['lines[0].rangeFrom', 'Union'],
        ['lines[0].extra', 'ObjectAdditionalProperties'],
        ['lines[1].series', 'ObjectRequiredProperty'],
        ['lines[1].rangeFrom', 'ObjectRequiredProperty'],
        ['lines[1].rangeTo', 'ObjectRequiredProperty'],
      ].sort(),
    );
    expect(await rejection(annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'x', lines: [] }))).toEqual([['lines', 'ArrayMinItems']]);
  });

  it('without a certificate to sign with answers 409 and discards nothing', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: 100, expiresOn: '2035-12-31' });
    await expect(annulSequences(engine, tenant.id, { environment: 'test', reason: 'x', lines: [line(31, 1, 10)] })).rejects.toMatchObject({
      kind: 'conflict',
      code: 'Certificate.NoneActive',
    });
    expect((await listRanges(engine, tenant.id))[0]).toMatchObject({ next: 1, remaining: 100 });
    expect(await engine.db.selectFrom('annulments').select('id').execute()).toEqual([]);
    // With one, the same request goes through (the sandbox is not configured: it fails to send, but discards).
    await uploadCertificate(engine, tenant.id, { file: makeP12(makeIdentity({ serialNumber: `IDCDO-${tenant.rnc}` }), 'p'), password: 'p' });
    await setSetting(engine, 'taxauth.url.test', 'http://127.0.0.1:9/testecf');
    const record = await annulSequences(engine, tenant.id, { environment: 'test', reason: 'x', lines: [line(31, 1, 10)] });
    expect(record).toMatchObject({ status: 'failed', lastError: expect.stringContaining('Could not reach') });
    expect((await listRanges(engine, tenant.id))[0]).toMatchObject({ next: 11, remaining: 90 });
  });
});
