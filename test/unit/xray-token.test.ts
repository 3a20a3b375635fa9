import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttp, type Http, type HttpSend } from '../../src/http/client';
import { HttpError } from '../../src/http/errors';
import { RequestLane } from '../../src/kit/lane';
import { XrayClient } from '../../src/targets/xray/client';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

/**
 * The bearer token an Xray call carries is the one current when the call leaves (its lane slot granted), not the
 * one it saw when it asked: with the sandbox's short tokens (the faults test's 4 s) and a lane that makes calls
 * wait longer than that, every call must still arrive with a live token, and a 401 renews the token once.
 * One clock for the sandbox module and the lane: waiting for the pacing window moves it, nothing really sleeps.
 */
const GET_STATUSES = 'query { getStatuses { name } }';

let h: XrayHarness;
let http: Http;
/** What each call carried, seen on the wire: its path, the token's age on the sandbox clock, the answer. */
type Sent = Array<{ path: string; ageMs?: number; status: number }>;

beforeAll(async () => {
  h = await startXray();
  http = createHttp();
});
afterAll(async () => {
  await http.close();
  await h.close();
});
afterEach(() => {
  h.module.configure({ tokenLifetimeSeconds: 86_400 });
});

function clientOn(rateLimit: { count: number; windowMs: number }, region = '', concurrency = 1): { client: XrayClient; sent: Sent } {
  const clock = {
    now: () => h.clock.now,
    sleep: async (ms: number) => {
      h.clock.now += ms;
    },
  };
  const sent: Sent = [];
  const send: HttpSend = async (service, req) => {
    const bearer = /^Bearer (\S+)$/.exec(req.headers?.Authorization ?? '')?.[1];
    const iat = bearer ? (JSON.parse(Buffer.from(bearer.split('.')[1], 'base64url').toString('utf8')) as { iat: number }).iat : undefined;
    const at = h.clock.now;
    const res = await http.send(service, req);
    sent.push({
      path: new URL(req.url).pathname.replace(/^.*\/api\/v2/, ''),
      ageMs: iat === undefined ? undefined : at - iat * 1000,
      status: res.status,
    });
    return res;
  };
  // One call at a time unless told, so that the order of the calls and of the clock's moves is fixed.
  const lane = new RequestLane({ name: 'Xray', concurrency, rateLimit, clock, random: () => 0 });
  const cfg = { baseUrl: h.base + region, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret };
  return { client: new XrayClient(cfg, lane, send, [cfg.clientSecret], clock.now), sent };
}

describe('Xray client: the token a call carries', () => {
  it('4 s tokens, calls leaving 2.5 s apart: every call carries a live token (read when it leaves), none meets a 401', async () => {
    h.module.configure({ tokenLifetimeSeconds: 4 });
    const { client, sent } = clientOn({ count: 1, windowMs: 2_500 });
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => client.graphql(`statuses ${i}`, GET_STATUSES, {})));
    expect(answers.every((a) => Array.isArray((a as { getStatuses: unknown[] }).getStatuses))).toBe(true);
    const data = sent.filter((s) => s.path === '/graphql');
    expect(data.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Each carried a token younger than its 4 s life when it left.
    for (const s of data) expect(s.ageMs!).toBeLessThan(4_000);
  });

  it('8 calls at once on 4 slots and no token yet: one authentication, in the first slot; the others wait for it, no deadlock', async () => {
    const { client, sent } = clientOn({ count: 100, windowMs: 1_000 }, '', 4);
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.graphql(`statuses ${i}`, GET_STATUSES, {})));
    expect(sent.filter((s) => s.path === '/authenticate')).toHaveLength(1);
    expect(sent.filter((s) => s.path === '/graphql' && s.status === 200)).toHaveLength(8);
  });

  it('a revoked token: the 401 renews it once and the call is repeated with the new one', async () => {
    const { client, sent } = clientOn({ count: 100, windowMs: 1_000 });
    await client.graphql('statuses', GET_STATUSES, {});
    h.module.revokeTokens();
    await client.graphql('statuses', GET_STATUSES, {});
    expect(sent.map((s) => `${s.path} ${s.status}`)).toEqual([
      '/authenticate 200',
      '/graphql 200',
      '/graphql 401',
      '/authenticate 200',
      '/graphql 200',
    ]);
  });

  it('a second 401 after a new token is final (here: the wrong region), with one renewal only', async () => {
    const { client, sent } = clientOn({ count: 100, windowMs: 1_000 }, '/eu');
    await expect(client.graphql('statuses', GET_STATUSES, {})).rejects.toThrow(HttpError);
    expect(sent.map((s) => `${s.path} ${s.status}`)).toEqual(['/authenticate 200', '/graphql 401', '/authenticate 200', '/graphql 401']);
  });
});
