import type { Env } from '../kit/config-fields';

/** What a CI build says about itself: enough to find the run from a cycle / test run in the service. */
export interface CiMetadata {
  provider: string;
  /** Link to the CI run (job or pipeline page). */
  runUrl?: string;
  branch?: string;
  commit?: string;
  /** Build number (or id). */
  buildNumber?: string;
}

/** Reads the build's own env vars (GitHub Actions, GitLab CI, Jenkins, CircleCI, Azure Pipelines, Bitbucket). */
export function detectCi(env: Env): CiMetadata | undefined {
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_RUN_ID) {
    const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
    return {
      provider: 'GitHub Actions',
      runUrl: env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
      branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME,
      commit: env.GITHUB_SHA,
      buildNumber: env.GITHUB_RUN_NUMBER ?? env.GITHUB_RUN_ID,
    };
  }
  if (env.GITLAB_CI) {
    return {
      provider: 'GitLab CI',
      runUrl: env.CI_PIPELINE_URL ?? env.CI_JOB_URL,
      branch: env.CI_COMMIT_REF_NAME,
      commit: env.CI_COMMIT_SHA,
      buildNumber: env.CI_PIPELINE_IID ?? env.CI_PIPELINE_ID,
    };
  }
  if (env.JENKINS_URL && env.BUILD_NUMBER) {
    return {
      provider: 'Jenkins',
      runUrl: env.BUILD_URL,
      branch: env.BRANCH_NAME ?? env.GIT_BRANCH,
      commit: env.GIT_COMMIT,
      buildNumber: env.BUILD_NUMBER,
    };
  }
  if (env.CIRCLECI) {
    return {
      provider: 'CircleCI',
      runUrl: env.CIRCLE_BUILD_URL,
      branch: env.CIRCLE_BRANCH,
      commit: env.CIRCLE_SHA1,
      buildNumber: env.CIRCLE_BUILD_NUM,
    };
  }
  if (env.TF_BUILD && env.BUILD_BUILDID) {
    const base =
      env.SYSTEM_COLLECTIONURI && env.SYSTEM_TEAMPROJECT
        ? `${env.SYSTEM_COLLECTIONURI.replace(/\/+$/, '')}/${encodeURIComponent(env.SYSTEM_TEAMPROJECT)}`
        : undefined;
    return {
      provider: 'Azure Pipelines',
      runUrl: base ? `${base}/_build/results?buildId=${env.BUILD_BUILDID}` : undefined,
      branch: env.BUILD_SOURCEBRANCHNAME,
      commit: env.BUILD_SOURCEVERSION,
      buildNumber: env.BUILD_BUILDNUMBER ?? env.BUILD_BUILDID,
    };
  }
  if (env.BITBUCKET_BUILD_NUMBER) {
    return {
      provider: 'Bitbucket Pipelines',
      runUrl: env.BITBUCKET_GIT_HTTP_ORIGIN
        ? `${env.BITBUCKET_GIT_HTTP_ORIGIN}/addon/pipelines/home#!/results/${env.BITBUCKET_BUILD_NUMBER}`
        : undefined,
      branch: env.BITBUCKET_BRANCH,
      commit: env.BITBUCKET_COMMIT,
      buildNumber: env.BITBUCKET_BUILD_NUMBER,
    };
  }
  return undefined;
}

/** Build label: the CI build number, else the short commit. */
export function buildLabel(ci: CiMetadata | undefined): string | undefined {
  return ci?.buildNumber ?? ci?.commit?.slice(0, 12);
}

/** Description of a cycle / run this reporter creates: where it came from, one fact per line. */
export function runDescription(ci: CiMetadata | undefined): string {
  const lines = ['Published by playwright-tms-reporter'];
  if (ci) {
    if (ci.runUrl) lines.push(`${ci.provider} run: ${ci.runUrl}`);
    else lines.push(`${ci.provider} build ${ci.buildNumber ?? ''}`.trim());
    if (ci.branch) lines.push(`Branch: ${ci.branch}`);
    if (ci.commit) lines.push(`Commit: ${ci.commit}`);
  }
  return lines.join('\n');
}
