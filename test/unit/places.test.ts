import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { countSent } from '../../src/engine/end-of-run';
import { KeyCompleteness } from '../../src/engine/key-completeness';
import { byPlace, Places } from '../../src/kit/places';
import { aggregate, defaultComment } from '../../src/shared/mapping';
import { emptySummary, keyLabel, keysOf, placedKey, unplaced, type TestRecord } from '../../src/shared/model';
import { summaryLine } from '../../src/shared/summary';
import { TARGETS } from '../../src/targets';

const rec = (testId: string, outcome: TestRecord['outcome'], place?: string): TestRecord => ({
  testId,
  title: `${place ?? ''} › a.spec.ts › ${testId}`,
  keys: { zephyr: ['PROJ-1'] },
  outcome,
  attempts: 1,
  ...(place !== undefined ? { place } : {}),
});

describe("projects: 'split' — each project's results apart", () => {
  it('merge mode keeps one result per key (worst wins); split keeps one per project and key', () => {
    const records = [rec('t1', 'failed', 'firefox'), rec('t2', 'passed', 'chromium')];
    const policy = {
      statusFor: (o: string) => (o === 'failed' ? 2 : 1),
      rank: (s: number) => s,
      comment: (item: Parameters<typeof defaultComment>[0]) => defaultComment(item, 100),
    };
    const merged = aggregate(
      records.map(({ place: _place, ...r }) => r),
      (r) => keysOf(r, 'zephyr'),
      policy,
    );
    expect(merged.map((i) => [i.key, i.status])).toEqual([['PROJ-1', 2]]);
    const split = aggregate(records, (r) => keysOf(r, 'zephyr'), policy);
    expect(split.map((i) => [unplaced(i.key), i.status])).toEqual([
      [{ key: 'PROJ-1', place: 'chromium' }, 1],
      [{ key: 'PROJ-1', place: 'firefox' }, 2],
    ]);
    expect(keyLabel(split[1].key)).toBe('PROJ-1 (firefox)');
    expect(keyLabel('PROJ-1')).toBe('PROJ-1');
  });

  it("a project's key is complete when that project's tests are, whatever another project still runs", () => {
    const c = new KeyCompleteness('zephyr');
    c.expect([
      { testId: 'c', keys: { zephyr: ['PROJ-1'] }, place: 'chromium' },
      { testId: 'f', keys: { zephyr: ['PROJ-1'] }, place: 'firefox' },
    ]);
    const touched = c.add(rec('c', 'passed', 'chromium'));
    expect(c.complete(touched).keys).toEqual(new Set([placedKey('chromium', 'PROJ-1')]));
  });

  it('groups items by place with the keys the service knows, and maps each back', () => {
    const a = { key: placedKey('chromium', 'PROJ-1'), outcome: 'passed' as const, status: 1, comment: '', tests: [] };
    const b = { ...a, key: placedKey('firefox', 'PROJ-1') };
    const c = { ...a, key: placedKey('chromium', 'PROJ-2') };
    const groups = byPlace([a, b, c]);
    expect(groups.map((g) => [g.place, g.items.map((i) => i.key)])).toEqual([
      ['chromium', ['PROJ-1', 'PROJ-2']],
      ['firefox', ['PROJ-1']],
    ]);
    expect(groups[0].original.get(groups[0].items[1])).toBe(c);
    const merge = byPlace([{ ...a, key: 'PROJ-1' }]);
    expect(merge).toHaveLength(1);
    expect(merge[0].place).toBeUndefined();
  });

  it("finds or makes each place's container once, however many ask at once; a failure is tried again", async () => {
    let calls = 0;
    let fail = true;
    const places = new Places(async (name: string) => {
      calls++;
      if (name === 'webkit' && fail) throw new Error('503');
      return `${name}-id`;
    });
    expect(await Promise.all([places.get('chromium'), places.get('chromium')])).toEqual(['chromium-id', 'chromium-id']);
    expect(calls).toBe(1);
    await expect(places.get('webkit')).rejects.toThrow('503');
    fail = false;
    expect(await places.get('webkit')).toBe('webkit-id');
    expect(calls).toBe(3);
  });

  it('the summary counts each project apart and gives it a line', () => {
    const s = emptySummary('zephyr', 'Zephyr Squad', 0, 0);
    const item = (place: string, status: number) => ({
      key: placedKey(place, 'PROJ-1'),
      outcome: 'passed' as const,
      status,
      comment: '',
      tests: [],
    });
    countSent(s, [item('chromium', 1), item('firefox', 2)], {
      byOutcome: {} as never,
      warnings: [],
      name: (x) => (x === 1 ? 'PASS' : 'FAIL'),
    });
    expect(s.countsByStatus).toEqual({ PASS: 1, FAIL: 1 });
    expect(s.byPlace).toEqual({
      chromium: { published: 1, countsByStatus: { PASS: 1 } },
      firefox: { published: 1, countsByStatus: { FAIL: 1 } },
    });
    expect(summaryLine(s).split('\n').slice(1)).toEqual(['  chromium: 1 published: PASS 1', '  firefox: 1 published: FAIL 1']);
  });

  it('reads projects from the option or PW_TMS_PROJECTS; anything else is one line naming both', () => {
    const read = (options: Record<string, unknown>, env: Record<string, string>) =>
      resolveConfig({ definitions: TARGETS, options, env, rootDir: '/tmp' });
    expect(read({}, {}).projects).toBe('merge');
    expect(read({}, { PW_TMS_PROJECTS: 'split' }).projects).toBe('split');
    expect(read({ projects: 'split' }, {}).projects).toBe('split');
    const bad = read({ projects: 'apart' }, {});
    expect(bad.projects).toBe('merge');
    expect(bad.problems).toEqual([expect.stringContaining('projects (env PW_TMS_PROJECTS): expected one of merge, split')]);
  });

  it('split needs every enabled target to keep projects apart: otherwise merge, said in one line', () => {
    const cs = TARGETS.find((d) => d.id === 'cucumberstudio')!;
    const env = {
      CUCUMBERSTUDIO_UID: 'u',
      CUCUMBERSTUDIO_ACCESS_TOKEN: 'tok-secret',
      CUCUMBERSTUDIO_CLIENT: 'c',
      CUCUMBERSTUDIO_PROJECT_ID: '1',
    };
    const read = (places: boolean) =>
      resolveConfig({ definitions: [{ ...cs, places }], options: { projects: 'split' }, env, rootDir: '/tmp' });
    expect(read(true)).toMatchObject({ projects: 'split', problems: [] });
    const cannot = read(false);
    expect(cannot.projects).toBe('merge');
    expect(cannot.problems).toEqual([
      expect.stringMatching(/^projects \(env PW_TMS_PROJECTS\): CucumberStudio cannot keep projects apart yet; merge is used/),
    ]);
    expect(cannot.targets).toHaveLength(1);
  });
});
