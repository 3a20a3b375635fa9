import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse, HttpSend } from '../../src/http/client';
import { BadResponseError, HttpError } from '../../src/http/errors';
import { RequestLane } from '../../src/kit/lane';
import { CucumberStudioClient } from '../../src/targets/cucumberstudio/client';

const TOKEN = 'cs-access-token-0123456789';
const creds = { baseUrl: 'https://studio.test', uid: 'me@example.com', accessToken: TOKEN, client: 'client-abcdef', projectId: 7 };

/** One scripted answer; the client's own exchange (no retry), so every status is seen once. */
function cs(answer: Partial<HttpResponse> & { text: string }, baseUrl = creds.baseUrl) {
  const sent: HttpRequest[] = [];
  const send: HttpSend = async (_s, req) => {
    sent.push(req);
    return { status: 200, headers: {}, durationMs: 1, ...answer };
  };
  const lane = new RequestLane({
    name: 'CucumberStudio',
    concurrency: 1,
    rateLimit: null,
    clock: { now: () => Date.now(), sleep: async () => {} },
  });
  return { client: new CucumberStudioClient({ ...creds, baseUrl }, lane, send, [TOKEN, creds.client]), sent };
}
const message = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: unknown) => {
      expect(e).toBeInstanceOf(Error);
      return (e as Error).message;
    },
  );

describe("401: the service's own words, whatever the body shape", () => {
  const check = 'Check CUCUMBERSTUDIO_UID, CUCUMBERSTUDIO_ACCESS_TOKEN and CUCUMBERSTUDIO_CLIENT';
  it('devise string array', async () => {
    const m = await message(cs({ status: 401, text: '{"errors":["Invalid login credentials. Please try again."]}' }).client.getProject());
    expect(m).toContain('CucumberStudio rejected the credentials (401: Invalid login credentials. Please try again.)');
    expect(m).toContain(check);
  });
  it('{"error": "…"}', async () => {
    expect(
      await message(cs({ status: 401, text: '{"error":"You need to sign in or sign up before continuing."}' }).client.getProject()),
    ).toContain('(401: You need to sign in or sign up before continuing.)');
  });
  it('JSON:API error objects', async () => {
    expect(
      await message(
        cs({ status: 401, text: '{"errors":[{"status":"401","title":"Unauthorized","detail":"Token expired"}]}' }).client.getProject(),
      ),
    ).toContain('(401: Token expired)');
  });
  it('plain text', async () => {
    expect(await message(cs({ status: 401, text: 'Unauthorized\n' }).client.getProject())).toContain('(401: Unauthorized)');
  });
  it('empty', async () => {
    const m = await message(cs({ status: 401, text: '' }).client.getProject());
    expect(m).toContain('CucumberStudio rejected the credentials (401).');
    expect(m).toContain(check);
  });
  it('never shows the access token or client, even when echoed', async () => {
    const { client } = cs({ status: 401, text: `{"errors":["token ${TOKEN} for client client-abcdef is invalid"]}` });
    const e = (await client.getProject().then(
      () => undefined,
      (x: unknown) => x,
    )) as HttpError;
    expect(e.message).toContain('(401: token [redacted] for client [redacted] is invalid)');
    expect(`${e.message} ${e.bodyText}`).not.toMatch(/cs-access-token|client-abcdef/);
  });
});

describe('other answers', () => {
  it('404 on the project names CUCUMBERSTUDIO_PROJECT_ID (and a wrong "/api" base)', async () => {
    expect(await message(cs({ status: 404, text: '{"errors":[{"title":"Not Found"}]}' }).client.getProject())).toMatch(
      /no project 7 for this user \(404: Not Found\): check CUCUMBERSTUDIO_PROJECT_ID .* CUCUMBERSTUDIO_BASE_URL/,
    );
    expect(await message(cs({ status: 404, text: '' }, 'https://studio.test/api').client.getProject())).toContain(
      'drop "/api" from CUCUMBERSTUDIO_BASE_URL',
    );
  });
  it('404 on a run names CUCUMBERSTUDIO_TEST_RUN_ID; 406 names the Accept header', async () => {
    expect(await message(cs({ status: 404, text: '' }).client.getRun(42))).toContain(
      'no test run 42 in project 7 (404): check CUCUMBERSTUDIO_TEST_RUN_ID',
    );
    expect(await message(cs({ status: 406, text: '{"error":"Not Acceptable"}' }).client.getProject())).toContain(
      'refused the Accept header on GET /api/projects/7 (406: Not Acceptable); it expects "application/vnd.api+json; version=1"',
    );
  });
  it('other statuses: the words, an excerpt, "an HTML page" or "an empty body"', async () => {
    expect(await message(cs({ status: 422, text: '{"errors":{"name":["can\'t be blank"]}}' }).client.createRunOnce('', [], 'd'))).toBe(
      "CucumberStudio answered POST /api/projects/7/test_runs with HTTP 422: name can't be blank.",
    );
    expect(await message(cs({ status: 403, text: 'Forbidden' }).client.createRunOnce('n', [], 'd'))).toBe(
      'CucumberStudio answered POST /api/projects/7/test_runs with HTTP 403: Forbidden.',
    );
    expect(await message(cs({ status: 500, text: '' }).client.createRunOnce('n', [], 'd'))).toBe(
      'CucumberStudio answered POST /api/projects/7/test_runs with HTTP 500 and an empty body.',
    );
    expect(await message(cs({ status: 502, text: '<html><body>Bad gateway</body></html>' }).client.createRunOnce('n', [], 'd'))).toMatch(
      /HTTP 502 and an HTML page instead of JSON .*CUCUMBERSTUDIO_BASE_URL/,
    );
    expect(
      await message(cs({ status: 429, headers: { 'retry-after': '60' }, text: 'Rate limit exceeded' }).client.createRunOnce('n', [], 'd')),
    ).toContain('(429; Retry-After 60: Rate limit exceeded)');
  });
  it('a 2xx that is empty, HTML or not JSON is a BadResponseError saying which', async () => {
    const bad = async (text: string) =>
      (await cs({ text })
        .client.createRunOnce('n', [], 'd')
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as BadResponseError;
    expect(await bad('')).toBeInstanceOf(BadResponseError);
    expect((await bad('')).message).toBe(
      'CucumberStudio answered POST /api/projects/7/test_runs with an empty body (HTTP 200) where a JSON:API document was expected.',
    );
    expect((await bad('<!DOCTYPE html><html></html>')).message).toContain('with an HTML page (HTTP 200)');
    expect((await bad('{"data":')).message).toContain('text that is not valid JSON');
  });
  it('marks its credential headers for the redirect rules', async () => {
    const { client, sent } = cs({ text: '{"data":{"id":"7"}}' });
    await client.getProject();
    expect(sent[0].credentialHeaders).toEqual(['uid', 'access-token', 'client']);
    expect(sent[0].headers).toMatchObject({ uid: creds.uid, 'access-token': TOKEN, client: creds.client });
  });
});
