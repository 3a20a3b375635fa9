import { BadResponseError, HttpError, looksLikeHtml, redact } from '../../http/errors';
import type { HttpResponse } from '../../http/client';

/** Reads ZAPI's error envelope `{errorType, clientMessage, errorCode}` when there is one. */
export function zapiMessage(text: string): { clientMessage?: string; errorCode?: number } {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const msg = body.clientMessage ?? body.errorDesc ?? body.message ?? body.error ?? body.errorMessages;
    return { clientMessage: typeof msg === 'string' ? msg : Array.isArray(msg) ? msg.join('; ') : undefined, errorCode: typeof body.errorCode === 'number' ? body.errorCode : undefined };
  } catch {
    return {};
  }
}


/** Turns a non-2xx answer into an error whose message says what to check. */
export function zephyrHttpError(method: string, path: string, res: HttpResponse, baseUrl: string, secrets: readonly string[]): HttpError {
  const { clientMessage, errorCode } = zapiMessage(res.text);
  const said = clientMessage ? redact(clientMessage, secrets).slice(0, 300) : undefined;
  const where = `${method} ${path.split('?')[0]}`;
  let message: string;
  if (res.status === 401 && /qsh/i.test(res.text)) {
    message =
      `Zephyr rejected the request signature (401, qsh mismatch) on ${where}. ` +
      `The signed path must exclude the context path: ZEPHYR_BASE_URL (zephyr.baseUrl) must be the service root ` +
      `including its context path, e.g. https://prod-api.zephyr4jiracloud.com/connect (now: ${baseUrl}).`;
  } else if (res.status === 401) {
    message =
      `Zephyr rejected the credentials (401${said ? `: ${said}` : ''}). Check ZEPHYR_ACCESS_KEY, ZEPHYR_SECRET_KEY and ` +
      `ZEPHYR_ACCOUNT_ID (zephyr.accessKey / secretKey / accountId): API keys are per Jira site and per user.`;
  } else if (res.status === 403) {
    message = `Zephyr refused ${where} (403${said ? `: ${said}` : ''}): the key's user lacks permission on project ZEPHYR_PROJECT_ID.`;
  } else if (res.status === 429) {
    message = `Zephyr rate limit reached on ${where} (429${said ? `: ${said}` : ''}).`;
  } else if (looksLikeHtml(res.text)) {
    message = `Zephyr answered ${where} with HTTP ${res.status} and an HTML page instead of JSON (a proxy, an outage, or a wrong ZEPHYR_BASE_URL (zephyr.baseUrl): ${baseUrl}).`;
  } else if (res.status === 404) {
    message = `Zephyr has no ${where} (404${said ? `: ${said}` : ''}): is ZEPHYR_BASE_URL (zephyr.baseUrl) = ${baseUrl} the ZAPI service root, e.g. https://prod-api.zephyr4jiracloud.com/connect?`;
  } else if (res.status === 500 && errorCode === 104) {
    message = `Zephyr asked to try again (500, errorCode 104) on ${where}.`;
  } else {
    message = `Zephyr answered ${where} with HTTP ${res.status}${said ? `: ${said}` : res.text ? `: ${redact(res.text, secrets).slice(0, 200)}` : ' and an empty body'}.`;
  }
  return new HttpError('Zephyr', method, path, res.status, res.headers, redact(res.text, secrets).slice(0, 2000), message);
}

/** Parses a 2xx JSON body; anything else is a BadResponseError with a readable message. */
export function parseJson<T>(method: string, path: string, res: HttpResponse): T {
  if (res.text.trim() === '') throw new BadResponseError('Zephyr', res.status, `Zephyr answered ${method} ${path.split('?')[0]} with an empty body where JSON was expected.`);
  try {
    return JSON.parse(res.text) as T;
  } catch {
    const kind = looksLikeHtml(res.text) ? 'an HTML page' : 'text that is not valid JSON (truncated?)';
    throw new BadResponseError('Zephyr', res.status, `Zephyr answered ${method} ${path.split('?')[0]} with ${kind} (HTTP ${res.status}).`);
  }
}
