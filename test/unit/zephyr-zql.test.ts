/**
 * Reading a few executions of a large cycle: the target pages the cycle's listing only when it needs most of it,
 * else it asks ZQL for its keys (50 per call). Calls are counted by the sandbox. The sandbox's ZQL is checked on
 * its own too (query forms real clients send, strict paging, a field it does not know).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import type { Target } from '../../src/kit/target';
import type { TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';
import { zqlForKeys } from '../../src/targets/zephyr/executions';
import { strictCall } from './zephyr-strict-client';

let sandbox: RunningSandbox;
const http = createHttp();
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 5 } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
  sandbox.configure('zephyr', { zql: 'indexed' });
});

const keys = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `PROJ-${from + i}`);
const calls = (route: string) => sandbox.stats().zephyr.byRoute[route] ?? 0;
const record = (key: string): TestRecord => ({ testId: key, title: `t › ${key}`, keys: { zephyr: [key] }, outcome: 'failed', attempts: 1 });

/** A new process publishing `mine` into the cycle `name` (created by the first one, reused by the others). */
async function shard(name: string, mine: string[]): Promise<Target> {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, ZEPHYR_RATE_LIMIT: 'off' };
  const config = resolveConfig({ definitions: [zephyr], options: { zephyr: {} }, env });
  expect(config.problems).toEqual([]);
  const target = zephyr.create(config.targets[0].config as never, {
    send: http.send,
    secrets: config.secrets,
    tuning: { zephyr: { firstPollMs: 5 } },
  });
  await (
    await target.begin({ knownKeys: mine })
  ).preparation;
  return target;
}

async function publishAll(target: Target, mine: string[]) {
  const statuses = await target.resolveStatuses('service');
  return target.publish(target.plan(mine.map(record), statuses));
}

function failedIn(name: string): string[] {
  const cycles = (sandbox.state().zephyr as { cycles: Array<{ name: string; executions: Array<{ issueKey: string; statusId: number }> }> })
    .cycles;
  return cycles
    .filter((c) => c.name === name)
    .flatMap((c) => c.executions.filter((e) => e.statusId === 2).map((e) => e.issueKey))
    .sort();
}

describe('a shard in a shared cycle', () => {
  it('reads its 120 executions of 1,000 by ZQL: 1 listing page and 3 searches instead of 20 pages', async () => {
    await shard('big', keys(1, 880));
    const before = { pages: calls('GET /executions/search/cycle/:id'), zql: calls('POST /zql/search') };
    const mine = keys(881, 1000);
    const result = await publishAll(await shard('big', mine), mine);
    expect(result.failed).toEqual([]);
    expect(calls('GET /executions/search/cycle/:id') - before.pages).toBe(1);
    expect(calls('POST /zql/search') - before.zql).toBe(3);
    expect(failedIn('big')).toEqual(mine.sort());
  });

  it("a key the add-tests job's message names among existing tests is found and published (the wording is not relied on)", async () => {
    sandbox.configure('zephyr', { addTestsMessage: 'text' });
    await shard('worded', keys(1, 880));
    // 50 keys and PROJ-500 map late (run-time annotations): they are added then, ZQL reads the 50 new ones, and
    // PROJ-500 is in the cycle already, not on the listing's first page: "… 0 test(s) were invalid. Existing tests: PROJ-500".
    const late = [...keys(951, 1000), 'PROJ-500'];
    const target = await shard('worded', keys(881, 950));
    const result = await publishAll(target, [...keys(881, 950), ...late]);
    expect(result.failed).toEqual([]);
    expect(failedIn('worded')).toEqual([...keys(881, 1000), 'PROJ-500'].sort());
    // A key the message names as invalid costs no read of the whole cycle once ZQL has found the others.
    const before = calls('GET /executions/search/cycle/:id');
    const again = await publishAll(target, ['PROJ-999999', ...keys(1001, 1010)]);
    expect(again.failed.map((f) => f.reason)).toEqual([expect.stringContaining('PROJ-999999 is not a Test issue')]);
    expect(calls('GET /executions/search/cycle/:id') - before).toBe(0);
  });

  it('pages the listing when it needs most of the cycle (no ZQL call)', async () => {
    const mine = keys(1, 300);
    expect((await publishAll(await shard('mostly mine', mine), mine)).failed).toEqual([]);
    expect(calls('POST /zql/search')).toBe(0);
    expect(calls('GET /executions/search/cycle/:id')).toBe(6);
  });

  it('a stale search index: what ZQL does not find is read from the listing, nothing is lost', async () => {
    await shard('stale', keys(1, 450));
    sandbox.configure('zephyr', { zql: 'stale' });
    const mine = keys(451, 500);
    expect((await publishAll(await shard('stale', mine), mine)).failed).toEqual([]);
    expect(calls('POST /zql/search')).toBe(1);
    expect(failedIn('stale')).toEqual(mine.sort());
  });

  it('no ZQL at all (404): the listing is read, and ZQL is not asked again by that process', async () => {
    await shard('absent', keys(1, 450));
    sandbox.configure('zephyr', { zql: 'absent' });
    const mine = keys(451, 500);
    const target = await shard('absent', mine);
    expect((await publishAll(target, mine)).failed).toEqual([]);
    const zql = calls('POST /zql/search');
    expect(zql).toBe(1);
    // A late key of the same process: again one listing read, no second ZQL try.
    expect((await publishAll(target, ['PROJ-501'])).failed).toEqual([]);
    expect(calls('POST /zql/search')).toBe(zql);
    expect(failedIn('absent')).toEqual([...mine, 'PROJ-501'].sort());
  });

  it('another cycle of the same name (another version) is not mistaken for ours', async () => {
    // Ours holds the keys first, the twin's executions come later: a search by name lists both, the twin's last.
    await shard('twin', keys(1, 460));
    const other = resolveConfig({
      definitions: [zephyr],
      options: { zephyr: {} },
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'twin', ZEPHYR_VERSION_ID: '10100', ZEPHYR_RATE_LIMIT: 'off' },
    });
    const twin = zephyr.create(other.targets[0].config as never, {
      send: http.send,
      secrets: other.secrets,
      tuning: { zephyr: { firstPollMs: 5 } },
    });
    await (
      await twin.begin({ knownKeys: keys(451, 460) })
    ).preparation;
    const mine = keys(451, 460);
    expect((await publishAll(await shard('twin', mine), mine)).failed).toEqual([]);
    const cycles = (
      sandbox.state().zephyr as {
        cycles: Array<{ name: string; versionId: number; executions: Array<{ issueKey: string; statusId: number }> }>;
      }
    ).cycles;
    const failedOf = (versionId: number) =>
      cycles
        .find((c) => c.name === 'twin' && c.versionId === versionId)!
        .executions.filter((e) => e.statusId === 2)
        .map((e) => e.issueKey)
        .sort();
    expect(failedOf(-1)).toEqual(mine.sort());
    expect(failedOf(10100)).toEqual([]);
  });
});

describe('sandbox ZQL', () => {
  it('answers the query forms clients send, 1.0 page shape, strict paging, unknown fields named', async () => {
    await shard('zql forms', keys(1, 60));
    const search = async (zqlQuery: string, extra: Record<string, unknown> = {}) => {
      const r = await strictCall(sandbox, 'POST', '/zql/search?isAdvanced=true', { zqlQuery, offset: 0, maxRecords: 50, ...extra });
      return { status: r.status, body: r.json };
    };
    const keysOf = (r: { body: any }) => r.body.searchObjectList.map((w: any) => w.issueKey);

    const ours = await search(zqlForKeys(10000, 'zql forms', ['PROJ-3', 'PROJ-1', 'PROJ-99']));
    expect(ours.status).toBe(200);
    expect(ours.body.totalCount).toBe(2);
    expect(keysOf(ours).sort()).toEqual(['PROJ-1', 'PROJ-3']);
    expect(ours.body.searchObjectList[0].execution.cycleName).toBe('zql forms');

    expect(
      keysOf(await search('project = "PROJ" AND fixVersion = "Unscheduled" AND cycleName in ("zql forms") AND issue = PROJ-7')),
    ).toEqual(['PROJ-7']);
    expect(
      (await search('cycleName = "zql forms" ORDER BY issue DESC', { maxRecords: 5, offset: 5 })).body.searchObjectList.map(
        (w: any) => w.issueKey,
      ),
    ).toEqual(['PROJ-55', 'PROJ-54', 'PROJ-53', 'PROJ-52', 'PROJ-51']);
    expect((await search('(issue = PROJ-1 OR issue = PROJ-2) AND executionStatus != PASS')).body.totalCount).toBe(2);
    expect((await search('cycleName = "no such cycle"')).body.totalCount).toBe(0);
    const tooMany = await search('issue = PROJ-1', { maxRecords: 51 });
    expect([tooMany.status, tooMany.body.clientMessage]).toEqual([400, 'maxRecords should not exceed 50']);
    const unknown = await search('colour = red');
    expect([unknown.status, unknown.body.clientMessage]).toEqual([
      400,
      "Field 'colour' does not exist or you do not have permission to view it.",
    ]);
    expect((await search('issue in (PROJ-1')).status).toBe(400);
  });
});
