import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse, HttpSend } from '../../src/http/client';
import { BadResponseError, HttpError } from '../../src/http/errors';
import { RequestLane } from '../../src/kit/lane';
import { isAdHocCycle, ZephyrClient } from '../../src/targets/zephyr/client';
import { jobDone, jobFailed, normalizeJobProgress, parseAddJobMessage, parseJobToken, waitForJob } from '../../src/targets/zephyr/jobs';

const creds = {
  baseUrl: 'https://zephyr.test/connect',
  accessKey: 'ACCESS-KEY-1234567890',
  secretKey: 'SECRET-KEY-abcdefghij',
  accountId: 'acc-1',
};
type Answer = Partial<HttpResponse> & { text: string };

/** A scripted service: answers in order (the last one repeats); records what was sent. A virtual clock: sleeping only advances it. */
function zephyr(...answers: Answer[]) {
  const sent: HttpRequest[] = [];
  const slept: number[] = [];
  const send: HttpSend = async (_service, req) => {
    sent.push(req);
    const a = answers.length > 1 ? answers.shift()! : answers[0];
    return { status: 200, headers: {}, durationMs: 1, ...a };
  };
  let now = 1_000_000;
  const sleep = async (ms: number) => {
    slept.push(ms);
    now += ms;
  };
  const lane = new RequestLane({
    name: 'Zephyr',
    concurrency: 1,
    rateLimit: null,
    retries: 2,
    clock: { sleep, now: () => now },
    random: () => 0,
  });
  return { client: new ZephyrClient(creds, lane, send, [creds.accessKey, creds.secretKey], () => 1_700_000_000), sent, slept };
}
/** waitForJob's sleep: no time passes, and a job that never ends fails the test instead of spinning. */
function polls(max = 10) {
  let n = 0;
  return async () => {
    if (++n > max) throw new Error('still polling after 10 polls');
  };
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

describe('job tokens: raw text, a JSON string, or {"jobProgressToken"}', () => {
  for (const [shape, body] of [
    ['raw text', '0001-abc-42'],
    ['raw text with a newline', '0001-abc-42\n'],
    ['a JSON string', '"0001-abc-42"'],
    ['the Server object', '{"jobProgressToken":"0001-abc-42"}'],
  ]) {
    it(shape, async () => {
      const z = zephyr({ text: body });
      expect(await z.client.addTests('12', ['PRJ-1'], 10000, -1)).toBe('0001-abc-42');
      expect(z.sent[0].credentialHeaders).toEqual(['Authorization', 'zapiAccessKey']);
    });
  }
  it('anything else is not a token', async () => {
    for (const body of [
      '',
      '<html><body>Login</body></html>',
      '{"errorType":"ERROR","clientMessage":"x"}',
      '{"jobProgressToken":null}',
      '[1]',
    ]) {
      expect(parseJobToken(body)).toBeUndefined();
    }
    expect(await failure(zephyr({ text: '{"status":"ok"}' }).client.bulkStatus(['1'], 1))).toBeInstanceOf(BadResponseError);
  });
});

describe('jobprogress', () => {
  it('is done at progress >= 1, as a number or a numeric string, whatever the message says', () => {
    for (const progress of [1, 1.0, '1', '1.0', ' 1.0 ', 1.5])
      expect(jobDone(normalizeJobProgress({ progress, message: 'anything at all' }))).toBe(true);
    for (const progress of [0, 0.99, '0.5', '', 'done', null, undefined])
      expect(jobDone(normalizeJobProgress({ progress, message: 'Completed' }))).toBe(false);
  });
  it('has failed on a non-empty errorMessage only', () => {
    expect(jobFailed(normalizeJobProgress({ progress: 1, errorMessage: 'Issue PRJ-9 not found' }))).toBe('Issue PRJ-9 not found');
    for (const errorMessage of [null, '', '   ', undefined])
      expect(jobFailed(normalizeJobProgress({ progress: 1, errorMessage }))).toBeUndefined();
    expect(() => normalizeJobProgress('0.5')).toThrow(BadResponseError);
  });
  it('waitForJob polls until "1.0" and ignores the wording of message', async () => {
    const z = zephyr(
      { text: '{"progress":0.0,"message":"","errorMessage":null}' },
      { text: '{"progress":"0.5","message":"Completed!"}' },
      { text: '{"progress":"1.0","message":"{\\"added\\":1}","errorMessage":""}' },
    );
    const p = await waitForJob(z.client, 'tok', { clock: { now: () => Date.now(), sleep: polls() } });
    expect(p.progress).toBe(1);
    expect(z.sent).toHaveLength(3);
  });
  it('waitForJob fails on the errorMessage, even with progress 1', async () => {
    const z = zephyr({ text: '{"progress":1,"errorMessage":"Execution not found"}' });
    expect((await failure(waitForJob(z.client, 'tok', { clock: { now: () => Date.now(), sleep: polls() } })))?.message).toBe(
      'Zephyr job failed: Execution not found',
    );
  });
});

describe('ids as numbers or numeric strings', () => {
  it('cycles leave the client with string ids; the Ad hoc cycle is recognisable', async () => {
    const z = zephyr({
      text: '[{"id":-1,"name":"Ad hoc"},{"id":"-1","name":"Nightly"},{"id":123,"name":"Nightly","projectId":"10000","versionId":"-1","totalExecutions":"4"}]',
    });
    const cycles = await z.client.searchCycles(10000, -1);
    expect(cycles.map((c) => [c.id, isAdHocCycle(c)])).toEqual([
      ['-1', true],
      ['-1', true],
      ['123', false],
    ]);
    expect(cycles[2]).toMatchObject({ projectId: 10000, versionId: -1, totalExecutions: 4 });
    // The reuse-by-name lookup (begin and check): the Ad hoc cycle never matches, whatever its name.
    expect((await z.client.cyclesNamed('Nightly', 10000, -1)).map((c) => c.id)).toEqual(['123']);
  });
  it('a created cycle and executions read with string ids and numeric issue/status ids', async () => {
    expect(
      (await zephyr({ text: '{"id":77,"name":"Nightly","cycleIndex":3}' }).client.createCycleOnce('Nightly', 1, -1, { description: 'd' }))
        .id,
    ).toBe('77');
    const z = zephyr({
      text: '{"totalCount":"1","searchObjectList":[{"issueKey":"PRJ-1","execution":{"id":9001,"issueId":"10001","status":{"id":"1"}}}]}',
    });
    expect(await z.client.executionsPage('77', 1, -1, 0)).toEqual({
      items: [{ id: '9001', issueId: 10001, issueKey: 'PRJ-1', statusId: 1 }],
      total: 1,
    });
    expect(await zephyr({ text: '[{"id":"1","name":"PASS"}]' }).client.statuses()).toEqual([{ id: 1, name: 'PASS' }]);
  });
});

describe('rate limits and "try again"', () => {
  it('a 429 with Retry-After 0 waits what the text says', async () => {
    const z = zephyr(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        text: '{"errorType":"ERROR","clientMessage":"Please wait for 34 seconds","errorCode":429}',
      },
      { text: '[]' },
    );
    await z.client.searchCycles(1, -1);
    expect(z.slept).toEqual([34_000]);
  });
  it('errorCode 104 (as a number or a string) is repeated as often as the lane allows, then reported', async () => {
    for (const code of ['104', '"104"']) {
      const z = zephyr({ status: 500, text: `{"errorType":"ERROR","clientMessage":"Please try again","errorCode":${code}}` });
      const e = await failure(z.client.statuses());
      expect(z.sent).toHaveLength(3);
      expect(e?.message).toBe(
        'Zephyr asked to try again (500, errorCode 104: Please try again) on GET /public/rest/api/1.0/execution/statuses.',
      );
    }
  });
});

describe('error messages', () => {
  it("401 qsh mismatch names ZEPHYR_BASE_URL and the service's words", async () => {
    const z = zephyr({ status: 401, text: "Expecting claim 'qsh' to have value 'abc' but instead it has the value 'def'" });
    const e = await failure(z.client.statuses());
    expect(e).toBeInstanceOf(HttpError);
    expect(e?.message).toMatch(/qsh mismatch: Expecting claim 'qsh'.*ZEPHYR_BASE_URL.*now: https:\/\/zephyr\.test\/connect/);
  });
  it('401 shows the words whatever the body shape, never the keys', async () => {
    for (const text of [
      '{"clientMessage":"Key ACCESS-KEY-1234567890 is invalid"}',
      '{"errors":["Key ACCESS-KEY-1234567890 is invalid"]}',
      'Key ACCESS-KEY-1234567890 is invalid',
    ]) {
      const e = await failure(zephyr({ status: 401, text }).client.statuses());
      expect(e?.message).toContain('Zephyr rejected the credentials (401: Key [redacted] is invalid)');
      expect(e?.message).not.toContain('ACCESS-KEY');
      expect((e as HttpError).bodyText).not.toContain('ACCESS-KEY');
    }
  });
  it('an HTML page or an empty body is said so', async () => {
    expect((await failure(zephyr({ status: 404, text: '<!doctype html><title>x</title>' }).client.statuses()))?.message).toMatch(
      /HTML page.*ZEPHYR_BASE_URL/,
    );
    expect((await failure(zephyr({ status: 400, text: '' }).client.statuses()))?.message).toBe(
      'Zephyr answered GET /public/rest/api/1.0/execution/statuses with HTTP 400 and an empty body.',
    );
    expect((await failure(zephyr({ text: '' }).client.statuses()))?.message).toMatch(/empty body \(HTTP 200\) where JSON was expected/);
    expect((await failure(zephyr({ text: '<html></html>' }).client.statuses()))?.message).toMatch(/an HTML page \(HTTP 200\)/);
  });
});

describe('add-tests job message (wording not established: it only words a rejection)', () => {
  it('names the keys said to be invalid or not found, not the ones in a later sentence', () => {
    expect(parseAddJobMessage('{"added":1,"existing":0,"invalid":["P-9"]}')).toEqual(['P-9']);
    expect(parseAddJobMessage('2 test(s) added. 1 test(s) were invalid: P-9, P-10. Existing tests: P-3')).toEqual(['P-9', 'P-10']);
    expect(parseAddJobMessage('0 test(s) were invalid. Existing tests: P-3')).toEqual([]);
    expect(parseAddJobMessage('Issues not found: P-7')).toEqual(['P-7']);
    expect(parseAddJobMessage('')).toEqual([]);
    expect(parseAddJobMessage(undefined)).toEqual([]);
  });
});
