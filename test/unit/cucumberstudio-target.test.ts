/**
 * The CucumberStudio target against a scripted fake service (no network): attribution of tests to
 * scenarios (linkage in one call, names as the fallback), readiness of the run's tests (423 and a short
 * 200 alike), errors that must surface at once, unknown mapped ids, and the duplicate-run mark.
 */
import { describe, expect, it } from 'vitest';
import { duplicateNote } from '../../src/targets/cucumberstudio/run-lifecycle';
import { FakeCs, item, makeTarget, type FakeTest } from './cucumberstudio-fake';

const locked = () => ({ status: 423, text: '{"errors":[{"status":"423","title":"Locked"}]}' });
const lastResults = (fake: FakeCs, runId: number) =>
  Object.fromEntries([...fake.runs.get(runId)!.tests].map((t) => [t.id, t.results.map((r) => r.status)]));

async function publishAll(fake: FakeCs, keys: number[], statuses: Record<number, string> = {}, cfg = {}) {
  const target = makeTarget(fake, cfg);
  const container = await target.begin({ knownKeys: keys.map(String) });
  const result = await target.publish(keys.map((k) => item(k, statuses[k] ?? 'passed')));
  await container.preparation;
  return { target, container, result, runId: Number(container.id) };
}

describe('CucumberStudio target: attribution', () => {
  it('list with linkage: one list call attributes every test; the project scenario list is never read', async () => {
    const fake = new FakeCs({ linkage: true, datasets: { 7: 2 }, names: { 11: 'Same name', 12: 'Same name' } });
    const { result, runId, target } = await publishAll(fake, [1, 7, 11, 12], { 11: 'failed' });
    expect(result.failed).toEqual([]);
    expect(result.done.map((i) => i.key).sort()).toEqual(['1', '11', '12', '7']);
    const byScenario = Object.fromEntries(
      fake.runs.get(runId)!.tests.map((t) => [`${t.scenarioId}/${t.id}`, t.results.map((r) => r.status)]),
    );
    expect(Object.values(byScenario)).toEqual([['passed'], ['passed'], ['passed'], ['failed'], ['passed']]);
    expect(Object.keys(byScenario).filter((k) => k.startsWith('11/'))).toHaveLength(1);
    expect(fake.count('GET /scenarios')).toBe(0); // neither the whole list nor single scenarios
    expect(fake.log.filter((l) => /test_snapshots\/\d+\?include=scenario/.test(l))).toEqual([]); // no per-test lookups
    // Twice: a list is final once two listings agree.
    expect(fake.log.filter((l) => l.includes('/test_snapshots?include=scenario'))).toEqual(
      Array(2).fill(`GET /test_runs/${runId}/test_snapshots?include=scenario`),
    );
    expect((await target.verify(result.done)).ok).toBe(true);
  });

  it('list without linkage (older service): names from one scenario list, shared names looked up per test', async () => {
    const fake = new FakeCs({ linkage: false, datasets: { 7: 2 }, names: { 11: 'Same name', 12: 'Same name' } });
    const { result, runId } = await publishAll(fake, [1, 7, 11, 12], { 11: 'failed' });
    expect(result.failed).toEqual([]);
    const statusOf = (sid: number) =>
      fake.runs
        .get(runId)!
        .tests.filter((t) => t.scenarioId === sid)
        .map((t) => t.results.map((r) => r.status).join());
    expect([statusOf(1), statusOf(7), statusOf(11), statusOf(12)]).toEqual([['passed'], ['passed', 'passed'], ['failed'], ['passed']]);
    expect(fake.count('GET /scenarios?')).toBe(0);
    expect(fake.log.filter((l) => l === 'GET /scenarios')).toHaveLength(1);
    expect(fake.log.filter((l) => /test_snapshots\/\d+\?include=scenario/.test(l))).toHaveLength(2); // the two tests named "Same name"
  });
});

describe('CucumberStudio target: readiness of the run tests', () => {
  it('a short 200 list that grows is "not ready": waits until every scenario has its tests and the list stops growing', async () => {
    const fake = new FakeCs({ linkage: true, datasets: { 7: 2 } });
    const firstOf7 = (ts: FakeTest[]) => ts.filter((t) => t.scenarioId !== 7 || t.id === ts.find((x) => x.scenarioId === 7)!.id);
    fake.listScript = [() => [], (ts) => ts.slice(0, 1), firstOf7];
    const { result, runId } = await publishAll(fake, [1, 7, 9]);
    expect(result.failed).toEqual([]);
    // Both tests of scenario 7 got their result, though the list first showed only one of them.
    expect(Object.values(lastResults(fake, runId))).toEqual([['passed'], ['passed'], ['passed'], ['passed']]);
    expect(fake.count(`GET /test_runs/${runId}/test_snapshots?`)).toBe(5); // [], [1], [1,7a,9], full, full again (unchanged)
  });

  it('423, then the complete list: results go out, readiness never read from the run statuses', async () => {
    const fake = new FakeCs({ linkage: true });
    fake.listScript = [locked, locked, locked];
    const { result, runId } = await publishAll(fake, [1, 2]);
    expect(result.done.map((i) => i.key)).toEqual(['1', '2']);
    expect(fake.count(`GET /test_runs/${runId}/test_snapshots?`)).toBe(5); // 3 × 423, the list, the list again (unchanged)
    expect(fake.count(`GET /test_runs/${runId}`) - fake.count(`GET /test_runs/${runId}/`)).toBe(0);
  });

  it('a first listing that already holds a test of every scenario but only row a of a dataset scenario: not taken as final', async () => {
    const fake = new FakeCs({ linkage: true, datasets: { 7: 3 } });
    const rowA = (ts: FakeTest[]) => ts.filter((t) => t.scenarioId !== 7 || t.id === ts.find((x) => x.scenarioId === 7)!.id);
    fake.listScript = [rowA];
    const { result, runId } = await publishAll(fake, [1, 7]);
    expect(result.failed).toEqual([]);
    // Rows b and c of scenario 7 got their result too.
    expect(Object.values(lastResults(fake, runId))).toEqual([['passed'], ['passed'], ['passed'], ['passed']]);
  });

  it('a truncated JSON 200 surfaces at once with its own message (not polled to the timeout as a 423)', async () => {
    const fake = new FakeCs({ linkage: true });
    const truncated = () => ({ status: 200, text: '{"data":[{"id":"1","type":"test-snapshots","attri' });
    fake.listScript = Array.from({ length: 1000 }, () => truncated);
    const target = makeTarget(fake);
    const { id } = await target.begin({ knownKeys: ['1'] });
    await expect(target.publish([item(1)])).rejects.toThrow(/test_snapshots with text that is not valid JSON/);
    // Once for the background preparation, once for publish: each surfaced on its first answer.
    expect(fake.count(`GET /test_runs/${id}/test_snapshots?`)).toBe(2);
  });

  it('423 past the timeout: one message naming the setting, results kept for replay', async () => {
    const fake = new FakeCs({ linkage: true });
    fake.listScript = Array.from({ length: 1000 }, () => locked);
    const target = makeTarget(fake, { snapshotTimeoutMs: 10_000 });
    await target.begin({ knownKeys: ['1'] });
    await expect(target.publish([item(1)])).rejects.toThrow(/still being generated after 10 s \(423\).*CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS/);
  });
});

describe('CucumberStudio target: mapped ids that do not exist', () => {
  it('strict service (422): checks the mapped ids one by one, creates the run with the existing ones, reports the others', async () => {
    const fake = new FakeCs({ linkage: true, strict: true, absent: [9998, 9999] });
    const { result, runId } = await publishAll(fake, [1, 2, 9998, 9999]);
    expect(result.done.map((i) => i.key)).toEqual(['1', '2']);
    expect(result.failed.map((f) => f.reason)).toEqual([
      'scenario 9998 does not exist in project 1',
      'scenario 9999 does not exist in project 1',
    ]);
    expect(fake.runs.get(runId)!.scenarioIds).toEqual([1, 2]);
    expect(fake.log.filter((l) => l === 'POST /test_runs')).toHaveLength(2); // refused, then with the existing ids
    expect(fake.log.filter((l) => /^GET \/scenarios\/\d+$/.test(l)).sort()).toEqual([
      'GET /scenarios/1',
      'GET /scenarios/2',
      'GET /scenarios/9998',
      'GET /scenarios/9999',
    ]);
    expect(fake.count('GET /scenarios?')).toBe(0);
    expect(fake.log).not.toContain('GET /scenarios');
  });

  it('lenient service (unknown ids dropped silently): a short list that stops growing gets its lacking ids checked, not waited to the timeout', async () => {
    const fake = new FakeCs({ linkage: true, strict: false, absent: [9999] });
    const { result } = await publishAll(fake, [1, 9999], {}, { snapshotTimeoutMs: 60_000 });
    expect(result.done.map((i) => i.key)).toEqual(['1']);
    expect(result.failed.map((f) => f.reason)).toEqual(['scenario 9999 does not exist in project 1']);
    expect(fake.log.filter((l) => /^GET \/scenarios\/\d+$/.test(l))).toEqual(['GET /scenarios/9999']);
  });

  it('a run-time key unknown to the project, on a reused run: the PATCH is refused, the id checked, the rest added', async () => {
    const fake = new FakeCs({ linkage: true, strict: true, absent: [9999] });
    const existing = fake.addRun('Nightly', [1]);
    const target = makeTarget(fake);
    expect(await target.begin({ knownKeys: ['1'] })).toMatchObject({ id: String(existing.id), reused: true });
    const result = await target.publish([item(1), item(3), item(9999)]);
    expect(result.done.map((i) => i.key)).toEqual(['1', '3']);
    expect(result.failed.map((f) => f.reason)).toEqual(['scenario 9999 does not exist in project 1']);
    expect(existing.scenarioIds).toEqual([1, 3]);
  });
});

describe('CucumberStudio target: reuse and racing shards', () => {
  it('a shard that lost the create race marks its run through the description, not by renaming it, and uses the winner', async () => {
    const fake = new FakeCs({ linkage: true });
    let winnerId = 0;
    fake.beforeCreate = () => {
      fake.beforeCreate = undefined;
      winnerId = fake.addRun('Nightly', [1]).id; // a parallel shard got there first (lower id)
    };
    const { container, result } = await publishAll(fake, [1, 2]);
    expect(container).toMatchObject({ id: String(winnerId), reused: true });
    const loser = [...fake.runs.values()].find((r) => r.id !== winnerId)!;
    expect(loser).toMatchObject({ name: 'Nightly', description: duplicateNote(String(winnerId)) });
    expect(loser.description).toBe(`Unused duplicate of test run ${winnerId} (created by a parallel shard); results are in ${winnerId}.`);
    expect(fake.log.filter((l) => l.startsWith('PATCH'))).toEqual([`PATCH /test_runs/${loser.id}`, `PATCH /test_runs/${winnerId}`]);
    // The winner lacked scenario 2 (this shard's): learned from its list, added, published.
    expect(fake.runs.get(winnerId)!.scenarioIds).toEqual([1, 2]);
    expect(result.done.map((i) => i.key)).toEqual(['1', '2']);
    expect(loser.tests.every((t) => t.results.length === 0)).toBe(true);
    // A later shard picks the same run: the lowest id with the name; so does `check`.
    expect(await makeTarget(fake).begin({ knownKeys: ['1'] })).toMatchObject({ id: String(winnerId), reused: true });
    expect((await makeTarget(fake).check()).map((l) => l.text)).toContain(`test run "Nightly" exists (id ${winnerId}) and will be reused`);
  });

  it('reuse by testRunId: the list linkage shows what the run lacks; only that is added', async () => {
    const fake = new FakeCs({ linkage: true });
    const run = fake.addRun('Someone else', [1, 2]);
    const { result } = await publishAll(fake, [2, 3], {}, { testRunId: run.id });
    expect(result.done.map((i) => i.key)).toEqual(['2', '3']);
    expect(run.scenarioIds).toEqual([1, 2, 3]);
    expect(fake.log.filter((l) => l.startsWith('PATCH'))).toEqual([`PATCH /test_runs/${run.id}`]);
    expect(fake.log.filter((l) => l === 'POST /test_runs')).toHaveLength(0);
  });

  it('a scenario with datasets whose post failed on one test: sent again, only that test gets the result', async () => {
    const fake = new FakeCs({ linkage: true, datasets: { 7: 3 } });
    let refused = 0;
    fake.refusePost = (testId) => {
      const second = fake.runs
        .values()
        .next()
        .value!.tests.filter((t) => t.scenarioId === 7)[1];
      if (testId !== second.id || refused++) return undefined;
      return { status: 422, text: '{"errors":[{"status":"422","title":"Unprocessable"}]}' };
    };
    const target = makeTarget(fake);
    const { id, preparation } = await target.begin({ knownKeys: ['7'] });
    const first = await target.publish([item(7, 'failed')]);
    expect(first.failed.map((f) => f.item.key)).toEqual(['7']);
    const again = await target.publish([item(7, 'failed')]);
    expect(again.done.map((i) => i.key)).toEqual(['7']);
    expect(Object.values(lastResults(fake, Number(id)))).toEqual([['failed'], ['failed'], ['failed']]);
    await preparation;
  });

  it('replay looks at each test last result before posting: nothing is posted twice', async () => {
    const fake = new FakeCs({ linkage: true });
    const first = await publishAll(fake, [1, 2], { 2: 'failed' });
    const replay = makeTarget(fake, { testRunId: first.runId }, true);
    await replay.begin({ knownKeys: ['1', '2'] });
    const again = await replay.publish([item(1), item(2, 'failed')]);
    expect(again.done.map((i) => i.key)).toEqual(['1', '2']);
    expect(Object.values(lastResults(fake, first.runId))).toEqual([['passed'], ['failed']]);
  });
});

describe('CucumberStudio target: the end looks at the run afresh', () => {
  /** Scenario 7 has 3 rows; the listings the results went by showed row a only (rows b and c were still being made). */
  async function rowAOnly() {
    const fake = new FakeCs({ linkage: true, datasets: { 7: 3 } });
    const rowA = (ts: FakeTest[]) => ts.slice(0, 1);
    fake.listScript = [rowA, rowA];
    const target = makeTarget(fake);
    const { id, preparation } = await target.begin({ knownKeys: ['7'] });
    const result = await target.publish([item(7, 'failed')]);
    expect(Object.values(lastResults(fake, Number(id)))).toEqual([['failed'], [], []]);
    return { fake, target, preparation, result, runId: Number(id) };
  }

  it('rows generated after the result went out get it before the read-back, which then matches', async () => {
    const { fake, target, preparation, result, runId } = await rowAOnly();
    const report = await target.verify(result.done);
    expect(Object.values(lastResults(fake, runId))).toEqual([['failed'], ['failed'], ['failed']]);
    expect(report).toMatchObject({ ok: true, containerStatus: 'failed 3' });
    await preparation;
  });

  it('a row that got no result fails the read-back by name (compared with the run now, not with what was posted)', async () => {
    const { fake, target, preparation, result, runId } = await rowAOnly();
    const [, b, c] = fake.runs.get(runId)!.tests;
    fake.refusePost = (testId) => (testId === b.id || testId === c.id ? { status: 422, text: '{"errors":[{"title":"no"}]}' } : undefined);
    const report = await target.verify(result.done);
    expect(report.ok).toBe(false);
    expect(report.details.join('\n')).toContain(
      `scenario 7: 2 of its 3 tests in test run ${runId} have no result from this run (tests ${b.id}, ${c.id})`,
    );
    expect(report.details[0]).toMatch(
      new RegExp(`^scenario 7: its result could not be sent to tests ${b.id}, ${c.id} of test run ${runId}`),
    );
    await preparation;
  });
});
