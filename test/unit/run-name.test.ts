import { describe, expect, it } from 'vitest';
import { defaultRunName } from '../../src/config/run-name';

const now = new Date(2026, 10, 26, 9, 5);

describe('default cycle / test-run name', () => {
  it('is the same for every shard of one build, and differs between two pipelines whose build numbers match', () => {
    const buildkite = (pipeline: string, id: string) =>
      defaultRunName({ BUILDKITE: 'true', BUILDKITE_BUILD_ID: id, BUILDKITE_BUILD_NUMBER: '42', BUILDKITE_PIPELINE_SLUG: pipeline }, now);
    expect(buildkite('web', '0190a1b2-0000-4000-8000-000000000001')).toBe(
      'Playwright web #42 (Buildkite build 0190a1b2-0000-4000-8000-000000000001)',
    );
    expect(buildkite('api', '0190a1b2-0000-4000-8000-000000000002')).not.toBe(buildkite('web', '0190a1b2-0000-4000-8000-000000000001'));

    const azure = (definition: string, id: string) =>
      defaultRunName({ TF_BUILD: 'True', BUILD_BUILDID: id, BUILD_BUILDNUMBER: '20261126.1', BUILD_DEFINITIONNAME: definition }, now);
    expect(azure('e2e', '9011')).toBe('Playwright e2e 20261126.1 (Azure build 9011)');
    expect(azure('smoke', '9012')).not.toBe(azure('e2e', '9011'));
    expect(defaultRunName({ TF_BUILD: 'True', BUILD_BUILDID: '9013' }, now)).toBe('Playwright (Azure build 9013)');

    // Bitbucket: the shards of a parallel step start at different minutes; the build number is the same.
    const bitbucket = (at: Date) => defaultRunName({ BITBUCKET_BUILD_NUMBER: '57', BITBUCKET_REPO_SLUG: 'shop' }, at);
    expect(bitbucket(new Date(2026, 10, 26, 10, 0, 59))).toBe('Playwright shop #57 (Bitbucket pipeline)');
    expect(bitbucket(new Date(2026, 10, 26, 10, 1, 2))).toBe(bitbucket(new Date(2026, 10, 26, 10, 0, 59)));
  });

  it('is cut in the middle to the 255 characters a cycle name may have, keeping the run id and the attempt', () => {
    const name = defaultRunName(
      { GITHUB_RUN_ID: '123', GITHUB_RUN_NUMBER: '7', GITHUB_RUN_ATTEMPT: '2', GITHUB_WORKFLOW: '🙂'.repeat(200) },
      now,
    );
    expect(name.length).toBeLessThanOrEqual(255);
    expect(name.startsWith('Playwright 🙂')).toBe(true);
    expect(name.endsWith('🙂 #7 (run 123, attempt 2)')).toBe(true);
    expect(name.isWellFormed()).toBe(true);
  });

  it('names the GitHub run and attempt, the GitLab pipeline, the Jenkins tag; else the local minute', () => {
    expect(defaultRunName({ GITHUB_RUN_ID: '123', GITHUB_RUN_NUMBER: '7', GITHUB_RUN_ATTEMPT: '2', GITHUB_WORKFLOW: 'e2e' }, now)).toBe(
      'Playwright e2e #7 (run 123, attempt 2)',
    );
    expect(defaultRunName({ GITLAB_CI: 'true', CI_PIPELINE_ID: '555', CI_COMMIT_REF_NAME: 'main' }, now)).toBe(
      'Playwright pipeline 555 (main)',
    );
    expect(defaultRunName({ JENKINS_URL: 'https://ci', BUILD_TAG: 'jenkins-web-42' }, now)).toBe('Playwright jenkins-web-42');
    expect(defaultRunName({}, now)).toBe('Playwright 2026-11-26 09:05');
  });
});
