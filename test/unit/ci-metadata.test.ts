import { describe, expect, it } from 'vitest';
import { buildLabel, detectCi, runDescription } from '../../src/config/ci-metadata';

describe('CI metadata', () => {
  it.each([
    [
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '77',
        GITHUB_RUN_NUMBER: '41',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_REF_NAME: 'main',
        GITHUB_SHA: 'abc123def4567890',
      },
      {
        provider: 'GitHub Actions',
        runUrl: 'https://github.com/o/r/actions/runs/77',
        branch: 'main',
        commit: 'abc123def4567890',
        buildId: '77',
      },
    ],
    [
      {
        GITLAB_CI: 'true',
        CI_PIPELINE_URL: 'https://gl/p/-/pipelines/9',
        CI_COMMIT_REF_NAME: 'dev',
        CI_COMMIT_SHA: 'c0ffee',
        CI_PIPELINE_IID: '12',
      },
      { provider: 'GitLab CI', runUrl: 'https://gl/p/-/pipelines/9', branch: 'dev', buildId: '12' },
    ],
    [
      {
        JENKINS_URL: 'https://j',
        BUILD_NUMBER: '5',
        BUILD_TAG: 'jenkins-x-5',
        BUILD_URL: 'https://j/job/x/5/',
        GIT_BRANCH: 'origin/main',
        GIT_COMMIT: 'f00',
      },
      { provider: 'Jenkins', runUrl: 'https://j/job/x/5/', buildId: 'jenkins-x-5' },
    ],
    [
      {
        CIRCLECI: 'true',
        CIRCLE_BUILD_URL: 'https://circle/1',
        CIRCLE_BRANCH: 'b',
        CIRCLE_SHA1: 's',
        CIRCLE_BUILD_NUM: '1',
        CIRCLE_WORKFLOW_ID: 'wf-1',
      },
      { provider: 'CircleCI', runUrl: 'https://circle/1', buildId: 'wf-1' },
    ],
    [
      {
        TF_BUILD: 'True',
        BUILD_BUILDID: '88',
        SYSTEM_COLLECTIONURI: 'https://dev.azure.com/org/',
        SYSTEM_TEAMPROJECT: 'My Proj',
        BUILD_BUILDNUMBER: '20261123.1',
      },
      { provider: 'Azure Pipelines', runUrl: 'https://dev.azure.com/org/My%20Proj/_build/results?buildId=88', buildId: '88' },
    ],
    [
      { BITBUCKET_BUILD_NUMBER: '3', BITBUCKET_GIT_HTTP_ORIGIN: 'http://bitbucket.org/w/r', BITBUCKET_BRANCH: 'f', BITBUCKET_COMMIT: 'e' },
      { provider: 'Bitbucket Pipelines', runUrl: 'http://bitbucket.org/w/r/addon/pipelines/home#!/results/3', buildId: '3' },
    ],
    [
      { BUILDKITE_BUILD_ID: 'bk-0190', BUILDKITE_BUILD_URL: 'https://buildkite.com/o/p/builds/4', BUILDKITE_BRANCH: 'main' },
      { provider: 'Buildkite', runUrl: 'https://buildkite.com/o/p/builds/4', branch: 'main', buildId: 'bk-0190' },
    ],
  ])('%j', (env, expected) => {
    expect(detectCi(env)).toMatchObject(expected);
  });
  it('one build id for every process of a CI build, and none shared with another build', () => {
    const id = (env: Record<string, string>) => buildLabel(detectCi(env));
    // GitHub numbers runs per workflow: two workflows' run 20 are two builds.
    const gh = { GITHUB_ACTIONS: 'true', GITHUB_RUN_NUMBER: '20' };
    expect(id({ ...gh, GITHUB_RUN_ID: '777020' })).not.toBe(id({ ...gh, GITHUB_RUN_ID: '888111' }));
    // A re-run attempt is the same build.
    expect(id({ ...gh, GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '2' })).toBe(id({ ...gh, GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '1' }));
    // CircleCI numbers jobs: the jobs of one workflow are one build.
    const circle = { CIRCLECI: 'true', CIRCLE_WORKFLOW_ID: 'wf-abc' };
    expect(id({ ...circle, CIRCLE_BUILD_NUM: '101' })).toBe(id({ ...circle, CIRCLE_BUILD_NUM: '102' }));
    // Jenkins numbers builds per job; Azure's build number is a per-pipeline name; Bitbucket numbers per repository.
    const jenkins = { JENKINS_URL: 'https://j', BUILD_NUMBER: '5' };
    expect(id({ ...jenkins, BUILD_TAG: 'jenkins-e2e-5' })).not.toBe(id({ ...jenkins, BUILD_TAG: 'jenkins-smoke-5' }));
    const azure = { TF_BUILD: 'True', BUILD_BUILDNUMBER: '20261127.1' };
    expect(id({ ...azure, BUILD_BUILDID: '88' })).not.toBe(id({ ...azure, BUILD_BUILDID: '89' }));
    const bitbucket = { BITBUCKET_BUILD_NUMBER: '3' };
    expect(id({ ...bitbucket, BITBUCKET_REPO_FULL_NAME: 'w/a' })).not.toBe(id({ ...bitbucket, BITBUCKET_REPO_FULL_NAME: 'w/b' }));
  });
  it('nothing outside CI; build label falls back to the short commit; description lists what is known', () => {
    expect(detectCi({})).toBeUndefined();
    expect(buildLabel({ provider: 'X', commit: '0123456789abcdef0123' })).toBe('0123456789ab');
    expect(
      runDescription(
        detectCi({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '7', GITHUB_REPOSITORY: 'o/r', GITHUB_REF_NAME: 'main', GITHUB_SHA: 'abc' }),
      ),
    ).toBe('Published by playwright-tms-reporter\nGitHub Actions run: https://github.com/o/r/actions/runs/7\nBranch: main\nCommit: abc');
    expect(runDescription(undefined)).toBe('Published by playwright-tms-reporter');
  });
});
