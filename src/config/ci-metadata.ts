import type { Env } from '../kit/config-fields';

/** What a CI build says about itself: enough to find the run from a cycle / test run in the service. */
export interface CiMetadata {
  provider: string;
  /** Link to the CI run (job or pipeline page). */
  runUrl?: string;
  branch?: string;
  commit?: string;
  /**
   * What every process of one CI build shares and no other build has: the build's id across the whole CI, not a
   * number that counts per workflow or per job (GitHub's run number, CircleCI's build number and Jenkins' build
   * number do). Worst wins across a build's processes and a new build's replacing an earlier one both key on it.
   */
  buildId?: string;
}

/** Reads the build's own env vars (GitHub Actions, GitLab CI, Jenkins, CircleCI, Azure Pipelines, Bitbucket, Buildkite). */
export function detectCi(env: Env): CiMetadata | undefined {
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_RUN_ID) {
    const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
    return {
      provider: 'GitHub Actions',
      runUrl: env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
      branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME,
      commit: env.GITHUB_SHA,
      // A re-run attempt keeps the run id: it is the same build (its jobs that passed are not run again).
      buildId: env.GITHUB_RUN_ID,
    };
  }
  if (env.GITLAB_CI) {
    return {
      provider: 'GitLab CI',
      runUrl: env.CI_PIPELINE_URL ?? env.CI_JOB_URL,
      branch: env.CI_COMMIT_REF_NAME,
      commit: env.CI_COMMIT_SHA,
      buildId: env.CI_PIPELINE_ID ?? env.CI_PIPELINE_IID,
    };
  }
  if (env.JENKINS_URL && env.BUILD_NUMBER) {
    return {
      provider: 'Jenkins',
      runUrl: env.BUILD_URL,
      branch: env.BRANCH_NAME ?? env.GIT_BRANCH,
      commit: env.GIT_COMMIT,
      // `jenkins-<job>-<number>`: the number counts per job.
      buildId: env.BUILD_TAG ?? env.BUILD_NUMBER,
    };
  }
  if (env.CIRCLECI) {
    return {
      provider: 'CircleCI',
      runUrl: env.CIRCLE_BUILD_URL,
      branch: env.CIRCLE_BRANCH,
      commit: env.CIRCLE_SHA1,
      // The workflow holds every job of the build (a job per project, parallel shards); CIRCLE_BUILD_NUM is one job's.
      buildId: env.CIRCLE_WORKFLOW_ID ?? env.CIRCLE_BUILD_NUM,
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
      // The build number is a per-pipeline name (`yyyyMMdd.r` by default); the id is unique.
      buildId: env.BUILD_BUILDID,
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
      // Numbered per repository: the repository tells two repositories' builds apart.
      buildId: env.BITBUCKET_REPO_FULL_NAME ? `${env.BITBUCKET_REPO_FULL_NAME}#${env.BITBUCKET_BUILD_NUMBER}` : env.BITBUCKET_BUILD_NUMBER,
    };
  }
  if (env.BUILDKITE_BUILD_ID) {
    return {
      provider: 'Buildkite',
      runUrl: env.BUILDKITE_BUILD_URL,
      branch: env.BUILDKITE_BRANCH,
      commit: env.BUILDKITE_COMMIT,
      buildId: env.BUILDKITE_BUILD_ID,
    };
  }
  return undefined;
}

/** Build label: the CI build's id, else the short commit. */
export function buildLabel(ci: CiMetadata | undefined): string | undefined {
  return ci?.buildId ?? ci?.commit?.slice(0, 12);
}

/** Description of a cycle / run this reporter creates: where it came from, one fact per line. */
export function runDescription(ci: CiMetadata | undefined): string {
  const lines = ['Published by playwright-tms-reporter'];
  if (ci) {
    if (ci.runUrl) lines.push(`${ci.provider} run: ${ci.runUrl}`);
    else lines.push(`${ci.provider} build ${ci.buildId ?? ''}`.trim());
    if (ci.branch) lines.push(`Branch: ${ci.branch}`);
    if (ci.commit) lines.push(`Commit: ${ci.commit}`);
  }
  return lines.join('\n');
}
