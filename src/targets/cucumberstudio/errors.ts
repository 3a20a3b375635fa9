import type { CucumberStudioConfig } from './config';
import { HttpError } from '../../http/errors';
import { saidIn, type ErrorFacts, type MessageTable } from '../../http/exchange';
import { SettingsRefusedError } from '../../kit/target';

/** The media type CucumberStudio v1 answers with; anything else is a 406. */
export const CS_ACCEPT = 'application/vnd.api+json; version=1';

/** CucumberStudio's sentences: what to check for each answer, with the service's own words (devise, JSON:API, text). */
export function cucumberStudioMessages(c: Pick<CucumberStudioConfig, 'baseUrl' | 'projectId'>): MessageTable {
  return (f: ErrorFacts) => {
    const said = saidIn(f);
    const path = f.path.split('?')[0];
    if (f.status === 401) {
      return (
        `CucumberStudio rejected the credentials (401${said || (f.html ? ': an HTML page' : '')}). Check CUCUMBERSTUDIO_UID, CUCUMBERSTUDIO_ACCESS_TOKEN and ` +
        `CUCUMBERSTUDIO_CLIENT (cucumberstudio.uid / accessToken / client): the three are issued together and expire after a year.`
      );
    }
    if (f.status === 406)
      return `CucumberStudio refused the Accept header on ${f.where} (406${said}); it expects "${CS_ACCEPT}" — a proxy may be rewriting headers.`;
    if (f.status === 404 && path === `/api/projects/${c.projectId}`) {
      return (
        `CucumberStudio has no project ${c.projectId} for this user (404${said}): check CUCUMBERSTUDIO_PROJECT_ID (cucumberstudio.projectId)` +
        (/\/api\/?$/.test(c.baseUrl)
          ? `, and drop "/api" from CUCUMBERSTUDIO_BASE_URL (cucumberstudio.baseUrl): it is the site root (now ${c.baseUrl}).`
          : ` and CUCUMBERSTUDIO_BASE_URL (cucumberstudio.baseUrl) = ${c.baseUrl}.`)
      );
    }
    if (f.status === 404 && /\/test_runs\/\d+$/.test(path)) {
      return `CucumberStudio has no test run ${path.split('/').pop()} in project ${c.projectId} (404${said}): check CUCUMBERSTUDIO_TEST_RUN_ID (cucumberstudio.testRunId).`;
    }
    if (f.status === 423) return `CucumberStudio is still generating the run's tests (423) on ${f.where}.`;
    if (f.status === 429)
      return `CucumberStudio rate limit reached on ${f.where} (429; Retry-After ${f.headers['retry-after'] ?? 'not given'}${said}).`;
    if (f.html)
      return `CucumberStudio answered ${f.where} with HTTP ${f.status} and an HTML page instead of JSON (a proxy, an outage, or a wrong CUCUMBERSTUDIO_BASE_URL: ${c.baseUrl}).`;
    return undefined;
  };
}

/**
 * The project refused (404: the user cannot see it): a setting the service refused, so the journal says so and a
 * replay takes the project from the config of then (the fix), not from the run.
 */
export function refusedProject(error: unknown): never {
  if (error instanceof HttpError && error.status === 404) throw new SettingsRefusedError(['projectId'], error.message);
  throw error;
}
