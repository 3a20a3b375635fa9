import { HttpError } from '../../http/errors';
import { saidIn, type ErrorFacts, type MessageTable } from '../../http/exchange';
import { SettingsRefusedError } from '../../kit/target';

/** ZAPI's `errorCode`; ids and codes travel as numbers or numeric strings. */
function errorCodeOf(body: unknown): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const code = (body as { errorCode?: unknown }).errorCode;
  const n = typeof code === 'number' ? code : typeof code === 'string' && /^\s*\d+\s*$/.test(code) ? Number(code) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Zephyr's sentences: what to check for each answer, with ZAPI's own words where it gave any. */
export function zephyrMessages(baseUrl: string): MessageTable {
  return (f: ErrorFacts) => {
    const said = saidIn(f);
    if (f.status === 401 && /qsh/i.test(f.text)) {
      return (
        `Zephyr rejected the request signature (401, qsh mismatch${said}) on ${f.where}. ` +
        `The signed path must exclude the context path: ZEPHYR_BASE_URL (zephyr.baseUrl) must be the service root ` +
        `including its context path, e.g. https://prod-api.zephyr4jiracloud.com/connect (now: ${baseUrl}).`
      );
    }
    if (f.status === 401) {
      return (
        `Zephyr rejected the credentials (401${said || (f.html ? ': an HTML page' : '')}). Check ZEPHYR_ACCESS_KEY, ZEPHYR_SECRET_KEY and ` +
        `ZEPHYR_ACCOUNT_ID (zephyr.accessKey / secretKey / accountId): API keys are per Jira site and per user.`
      );
    }
    if (f.status === 403) return `Zephyr refused ${f.where} (403${said}): the key's user lacks permission on project ZEPHYR_PROJECT_ID.`;
    if (f.status === 429) return `Zephyr rate limit reached on ${f.where} (429${said}).`;
    if (f.html)
      return `Zephyr answered ${f.where} with HTTP ${f.status} and an HTML page instead of JSON (a proxy, an outage, or a wrong ZEPHYR_BASE_URL (zephyr.baseUrl): ${baseUrl}).`;
    if (f.status === 404)
      return `Zephyr has no ${f.where} (404${said}): is ZEPHYR_BASE_URL (zephyr.baseUrl) = ${baseUrl} the ZAPI service root, e.g. https://prod-api.zephyr4jiracloud.com/connect?`;
    // 104 is ZAPI's generic "please try again"; the retry policy repeats it a bounded number of times.
    if (f.status === 500 && errorCodeOf(f.json) === 104) return `Zephyr asked to try again (500, errorCode 104${said}) on ${f.where}.`;
    return undefined;
  };
}

/**
 * The project's cycle listing refused (400/404: no such project, or no such version in it): the run never resolved
 * them, so its journal says so and a replay takes both from the config of then (the fix), not from the run.
 */
export function refusedProjectOrVersion(error: unknown): never {
  if (error instanceof HttpError && (error.status === 400 || error.status === 404))
    throw new SettingsRefusedError(['projectId', 'versionId'], error.message);
  throw error;
}
