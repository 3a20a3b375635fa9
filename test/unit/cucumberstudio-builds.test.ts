import { describe, expect, it } from 'vitest';
import { cucumberstudio } from '../../src/targets/cucumberstudio/definition';
import type { CucumberStudioConfig } from '../../src/targets/cucumberstudio/config';
import { clock, FakeCs, item } from './cucumberstudio-fake';

/** The real target on the fake, publishing for CI build `ci 9`. */
function target(fake: FakeCs) {
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
});
