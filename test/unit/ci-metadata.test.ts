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
        buildNumber: '41',
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
      { provider: 'GitLab CI', runUrl: 'https://gl/p/-/pipelines/9', branch: 'dev', buildNumber: '12' },
    ],
    [
      { JENKINS_URL: 'https://j', BUILD_NUMBER: '5', BUILD_URL: 'https://j/job/x/5/', GIT_BRANCH: 'origin/main', GIT_COMMIT: 'f00' },
      { provider: 'Jenkins', runUrl: 'https://j/job/x/5/', buildNumber: '5' },
    ],
    [
      { CIRCLECI: 'true', CIRCLE_BUILD_URL: 'https://circle/1', CIRCLE_BRANCH: 'b', CIRCLE_SHA1: 's', CIRCLE_BUILD_NUM: '1' },
      { provider: 'CircleCI', runUrl: 'https://circle/1' },
    ],
    [
      {
        TF_BUILD: 'True',
        BUILD_BUILDID: '88',
        SYSTEM_COLLECTIONURI: 'https://dev.azure.com/org/',
        SYSTEM_TEAMPROJECT: 'My Proj',
        BUILD_BUILDNUMBER: '20261123.1',
      },
      { provider: 'Azure Pipelines', runUrl: 'https://dev.azure.com/org/My%20Proj/_build/results?buildId=88', buildNumber: '20261123.1' },
    ],
    [
      { BITBUCKET_BUILD_NUMBER: '3', BITBUCKET_GIT_HTTP_ORIGIN: 'http://bitbucket.org/w/r', BITBUCKET_BRANCH: 'f', BITBUCKET_COMMIT: 'e' },
      { provider: 'Bitbucket Pipelines', runUrl: 'http://bitbucket.org/w/r/addon/pipelines/home#!/results/3' },
    ],
  ])('%j', (env, expected) => {
    expect(detectCi(env)).toMatchObject(expected);
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
