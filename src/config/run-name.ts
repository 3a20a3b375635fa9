import type { Env } from '../kit/config-fields';

/**
 * Default cycle / test-run name. In CI every shard of one build must compute the same name without
 * configuration, so it derives from the build id when one is known; locally it is the date-time.
 */
export function defaultRunName(env: Env, now: Date): string {
  return fit(nameFromCi(env) ?? `Playwright ${localDateTime(now)}`);
}

/** Longest name Zephyr takes for a cycle (a CI workflow or branch name can be long). */
const MAX_NAME = 255;

/** Cut in the middle: every form keeps what tells builds apart at its start or its end. */
function fit(name: string): string {
  if (name.length <= MAX_NAME) return name;
  const half = Math.floor((MAX_NAME - 1) / 2);
  // Never half an emoji at either cut.
  return `${name.slice(0, half).replace(/[\uD800-\uDBFF]$/, '')}…${name.slice(-half).replace(/^[\uDC00-\uDFFF]/, '')}`;
}

function nameFromCi(env: Env): string | undefined {
  if (env.GITHUB_RUN_ID) {
    const workflow = env.GITHUB_WORKFLOW ? `${env.GITHUB_WORKFLOW} ` : '';
    return `Playwright ${workflow}#${env.GITHUB_RUN_NUMBER ?? env.GITHUB_RUN_ID} (run ${env.GITHUB_RUN_ID}, attempt ${env.GITHUB_RUN_ATTEMPT ?? '1'})`;
  }
  if (env.CI_PIPELINE_ID && env.GITLAB_CI)
    return `Playwright pipeline ${env.CI_PIPELINE_ID}${env.CI_COMMIT_REF_NAME ? ` (${env.CI_COMMIT_REF_NAME})` : ''}`;
  if (env.BUILD_TAG && env.JENKINS_URL) return `Playwright ${env.BUILD_TAG}`;
  // Buildkite numbers builds per pipeline and Azure's build number is per definition (`yyyyMMdd.r` by default):
  // the ids are unique across pipelines, the numbers and names only make the name readable.
  if (env.BUILDKITE_BUILD_ID) {
    const pipeline = env.BUILDKITE_PIPELINE_SLUG ? `${env.BUILDKITE_PIPELINE_SLUG} ` : '';
    const number = env.BUILDKITE_BUILD_NUMBER ? `#${env.BUILDKITE_BUILD_NUMBER} ` : '';
    return `Playwright ${pipeline}${number}(Buildkite build ${env.BUILDKITE_BUILD_ID})`;
  }
  if (env.CIRCLE_WORKFLOW_ID) return `Playwright CircleCI workflow ${env.CIRCLE_WORKFLOW_ID}`;
  // Bitbucket numbers builds per repository; a parallel step's shards and a re-run of a failed step share it.
  if (env.BITBUCKET_BUILD_NUMBER) {
    const repo = env.BITBUCKET_REPO_SLUG ? `${env.BITBUCKET_REPO_SLUG} ` : '';
    return `Playwright ${repo}#${env.BITBUCKET_BUILD_NUMBER} (Bitbucket pipeline)`;
  }
  if (env.BUILD_BUILDID && env.TF_BUILD) {
    const definition = env.BUILD_DEFINITIONNAME ? `${env.BUILD_DEFINITIONNAME} ` : '';
    const number = env.BUILD_BUILDNUMBER ? `${env.BUILD_BUILDNUMBER} ` : '';
    return `Playwright ${definition}${number}(Azure build ${env.BUILD_BUILDID})`;
  }
  return undefined;
}

function localDateTime(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
