import { describe, expect, it } from 'vitest';
import { cucumberstudio } from '../../src/targets/cucumberstudio/definition';
import type { CucumberStudioConfig } from '../../src/targets/cucumberstudio/config';
import { clock, FakeCs, item } from './cucumberstudio-fake';
import { correction, type HeldResult } from '../../src/targets/cucumberstudio/worst-wins';

/** The real target on the fake, publishing for CI build `ci 9`. */
function target(fake: FakeCs, replay = false) {
  const c = clock();
  const config: CucumberStudioConfig = {
    baseUrl: 'https://cs.test',
    uid: 'u',
    accessToken: 'token-secret',
    client: 'c',
    projectId: 1,
    testRunName: 'Nightly',
    statusMap: {},
    rateLimit: null,
    snapshotTimeoutMs: 60_000,
  };
  return cucumberstudio.create(config, {
    send: fake.send,
    secrets: ['token-secret'],
    replay,
    lane: { clock: c, random: () => 0 },
    tuning: { cucumberstudio: { wait: { clock: c } } },
    runInfo: { description: '', buildId: 'ci 9' },
  });
}

/** Build id -> statuses of the results it holds. */
function resultsByBuild(fake: FakeCs, runId: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of fake.runs.get(runId)!.tests) for (const r of t.results) (out[String(r.build)] ??= []).push(r.status);
  return out;
}

describe("CucumberStudio target: the CI build's build", () => {
  it('a create that ignores the name and answers 500 after applying: renamed, and no second build', async () => {
    const fake = new FakeCs({ linkage: true, ignoreBuildName: true });
    fake.buildCreatesFailingAfterApplying = 1;
    const t = target(fake);
    const { id } = await t.begin({ knownKeys: ['1'] });
    const result = await t.publish([item(1, 'failed')]);
    expect(result.failed).toEqual([]);
    const run = fake.runs.get(Number(id))!;
    expect(run.builds).toEqual([{ id: '500', name: 'ci 9' }]);
    expect(resultsByBuild(fake, run.id)).toEqual({ 500: ['failed'] });
    expect(fake.count(`POST /test_runs/${run.id}/execution_environments/1/builds`)).toBe(1);
  });

  it('builds of that name exist: the lowest open one is used (names repeat; a closed build takes nothing), none created', async () => {
    const fake = new FakeCs({ linkage: true });
    const run = fake.addRun('Nightly', [1]);
    run.builds = [
      { id: '500', name: 'ci 9', closed: true },
      { id: '501', name: 'ci 8' },
      { id: '502', name: 'ci 9' },
      { id: '503', name: 'ci 9' },
    ];
    const t = target(fake);
    await t.begin({ knownKeys: ['1'] });
    const result = await t.publish([item(1, 'passed')]);
    expect(result.failed).toEqual([]);
    expect(resultsByBuild(fake, run.id)).toEqual({ 502: ['passed'] });
    expect(fake.count(`POST /test_runs/${run.id}/execution_environments/1/builds`)).toBe(0);
    // The end: another process's failure in the build is posted again (with its text), ours passed is no failure of ours.
    run.tests[0].results.push({ status: 'failed', description: 'fails elsewhere', author: 'x', build: '502' });
    run.tests[0].results.push({ status: 'passed', description: '', author: 'x', build: '502' });
    const report = await t.verify(result.done);
    expect(report.ok).toBe(true);
    expect(run.tests[0].results.at(-1)).toMatchObject({ status: 'failed', description: 'fails elsewhere', build: '502' });
    expect(report.containerStatus).toBe('failed 1');
  });

  it("a replay does not take another CI build's result alike for its own: it posts into its build", async () => {
    const fake = new FakeCs({ linkage: true });
    const run = fake.addRun('Nightly', [1]);
    run.builds = [{ id: '500', name: 'ci 10' }];
    run.tests[0].results.push({ status: 'passed', description: '', author: 'playwright-tms-reporter', build: '500' });
    const t = target(fake, true);
    await t.begin({ knownKeys: ['1'] });
    expect((await t.publish([item(1, 'passed')])).failed).toEqual([]);
    expect(resultsByBuild(fake, run.id)).toEqual({ 500: ['passed'], 501: ['passed'] });
    expect(run.builds.map((b) => b.name)).toEqual(['ci 10', 'ci 9']);
  });
});

describe('worst wins in a build: the correction one test needs', () => {
  const held = (...statuses: string[]): HeldResult[] =>
    statuses.map((status, i) => ({ id: String(i + 1), testId: '9', status, description: `${status} ${i + 1}`, createdAt: i }));
  it('posts the worst again when the latest is better, ours when nothing held is as bad, else nothing', () => {
    expect(correction({ status: 'passed' }, held('failed', 'passed'))).toMatchObject({ id: '1', status: 'failed' });
    expect(correction({ status: 'passed' }, held('failed', 'blocked', 'failed', 'passed'))).toMatchObject({ id: '3' });
    expect(correction({ status: 'passed' }, held('passed', 'failed'))).toBeUndefined();
    expect(correction({ status: 'failed' }, held('passed'))).toBe('ours');
    expect(correction({ status: 'passed' }, [])).toBe('ours');
    expect(correction({ status: 'skipped' }, held('passed', 'skipped'))).toMatchObject({ id: '1', status: 'passed' });
  });
});
