import { describe, expect, it } from 'vitest';
import { BuildMarks, markComment, readMark } from '../../src/targets/zephyr/build-marks';
import { BUILT_IN_STATUSES, zephyrRank } from '../../src/targets/zephyr/statuses';

const names = {
  name: (id: number) => BUILT_IN_STATUSES.find((s) => s.id === id)?.name ?? String(id),
  id: (name: string) => BUILT_IN_STATUSES.find((s) => s.name === name)?.id,
};
const marks = (build: string, shared = true) => new BuildMarks(build, shared, names, (id) => zephyrRank(id, 'passed'));
const [UNEXECUTED, PASS, FAIL, BLOCKED] = [-1, 1, 2, 4];

describe('build marks on Zephyr comments', () => {
  it('a comment ends with a line naming the build and the status, read back as written, within the limit', () => {
    const text = markComment('Failed: Error: boom\nat a.spec.ts:3:1', '1234', 'FAIL', 750);
    expect(text).toBe('Failed: Error: boom\nat a.spec.ts:3:1\n\nplaywright-tms-reporter · build 1234 · FAIL');
    expect(readMark(text)).toEqual({ build: '1234', status: 'FAIL' });
    // A build label with the separator in it, a status name with a space.
    expect(readMark(markComment('x', 'main · 7', 'PARTIALLY PASSED', 750))).toEqual({ build: 'main · 7', status: 'PARTIALLY PASSED' });
    const cut = markComment('y'.repeat(800), '1234', 'FAIL', 750);
    expect(cut).toHaveLength(750);
    expect(readMark(cut)).toEqual({ build: '1234', status: 'FAIL' });
    expect(readMark('Failed: Error: boom')).toBeUndefined();
    expect(readMark(undefined)).toBeUndefined();
  });

  it('a worse result of this build stands; another build’s, or one from before marks, is stale', () => {
    const m = marks('1234');
    const ours = { statusId: FAIL, comment: m.mark('Failed: boom', FAIL, 750) };
    expect(m.worseHere(ours, PASS)).toBe(true);
    expect(m.worseHere(ours, FAIL)).toBe(false);
    expect(m.worseHere({ comment: m.mark('Interrupted: x', BLOCKED, 750) }, FAIL)).toBe(false);
    expect(m.stale(ours)).toBe(false);
    const other = marks('1233');
    expect(other.worseHere(ours, PASS)).toBe(false);
    expect(other.stale(ours)).toBe(true);
    expect(m.stale({ statusId: FAIL, comment: 'Failed: from before marks' })).toBe(true);
    expect(m.stale({ statusId: UNEXECUTED })).toBe(false);
    // A status with no mark: stale only when the cycle was another build's when this process began.
    m.earlierBuild = false;
    expect(m.stale({ statusId: PASS })).toBe(false);
    m.earlierBuild = true;
    expect(m.stale({ statusId: PASS })).toBe(true);
    expect(m.worst(PASS, m.ownBuildStatus(ours.comment))).toBe(FAIL);
    expect(m.worst(BLOCKED, undefined)).toBe(BLOCKED);
  });
});
