/**
 * A third service added without touching src/: its definition lives in test/fixtures/fake-target and
 * is handed to the reporter next to the registry's. A real `playwright test` run (live, and through
 * blob -> merge-reports) publishes to the fake service's HTTP server; the test asserts what it holds.
 */
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, exec, REPO, tempDir } from './harness';

const PW_CLI = require.resolve('@playwright/test/cli', { paths: [REPO] });
const TOKEN = 'fake-token-secret-1234';

interface FakeRun {
  id: string;
  name: string;
  results: Record<string, string>;
  posts: number;
}

let server: Server;
let url = '';
const runs: FakeRun[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.headers['x-fake-token'] !== TOKEN) return send(401, { error: 'bad token' });
      const u = new URL(req.url ?? '/', 'http://x');
      const m = /^\/runs\/(\d+)(\/results)?$/.exec(u.pathname);
      if (req.method === 'GET' && u.pathname === '/runs')
        return send(200, { ids: runs.filter((r) => r.name === u.searchParams.get('name')).map((r) => r.id) });
      if (req.method === 'POST' && u.pathname === '/runs') {
        const run = { id: String(runs.length + 1), name: (JSON.parse(body) as { name: string }).name, results: {}, posts: 0 };
        runs.push(run);
        return send(201, { id: run.id });
      }
      const run = m ? runs.find((r) => r.id === m[1]) : undefined;
      if (!run) return send(404, { error: 'no such run' });
      if (req.method === 'GET' && !m![2]) return send(200, { results: run.results });
      const { key, status } = JSON.parse(body) as { key: string; status: string };
      run.results[key] = status;
      run.posts++;
      return send(201, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const SPEC = `const { test, expect } = require('@playwright/test');
test('a passes', { tag: '@fake-a' }, () => {});
test('b fails', { tag: '@fake-b' }, () => { expect(1).toBe(2); });
test('b passes too', { annotation: { type: 'faketms', description: 'b' } }, () => {});
test('c flaky', { tag: '@fake-c' }, ({}, info) => { if (info.retry === 0) throw new Error('first'); });
test('not mapped', () => {});
`;

function config(reporters: string): string {
  return `export default { testDir: './tests', outputDir: './test-results', retries: 1, workers: 2, fullyParallel: true, reporter: ${reporters} };\n`;
}

describe.each(['live'] as const)('a third target from outside src/ (%s)', (mode) => {
  let dir = '';
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('publishes through the same engine: one result per key, worst wins, summary line and file', async () => {
    dir = tempDir('fake-target');
    fs.mkdirSync(path.join(dir, 'tests'));
    fs.writeFileSync(path.join(dir, 'tests', 'fake.spec.ts'), SPEC);
    // The registry's list plus the fake definition: the reporter iterates whatever it is handed.
    fs.writeFileSync(
      path.join(dir, 'tms-with-fake.ts'),
      `import TmsReporter from 'playwright-tms-reporter';
import { TARGETS } from ${JSON.stringify(path.join(REPO, 'dist/targets'))};
import { fakeTarget } from ${JSON.stringify(path.join(REPO, 'test/fixtures/fake-target'))};
export default class extends TmsReporter {
  constructor(options: any) { super(options, process.env, [...TARGETS, fakeTarget]); }
}
`,
    );
    const name = `fake ${mode}`;
    const env = baseEnv({
      FAKETMS_TOKEN: TOKEN,
      FAKETMS_URL: url,
      FAKETMS_RUN_NAME: name,
      PW_TMS_OUTBOX_DIR: path.join(dir, 'outbox'),
      PW_TMS_SUMMARY_FILE: path.join(dir, 'summary.json'),
    });
    const tms = `['./tms-with-fake.ts', { faketms: { runName: ${JSON.stringify(name)} } }]`;
    let output: string;
    if (mode === 'live') {
      fs.writeFileSync(path.join(dir, 'playwright.config.ts'), config(`[['dot'], ${tms}]`));
      output = (await exec(process.execPath, [PW_CLI, 'test'], dir, env)).output;
    } else {
      fs.writeFileSync(path.join(dir, 'playwright.config.ts'), config(`[['dot'], ['blob']]`));
      fs.writeFileSync(path.join(dir, 'merge.config.ts'), config(`[['dot'], ${tms}]`));
      await exec(
        process.execPath,
        [PW_CLI, 'test'],
        dir,
        baseEnv({ PLAYWRIGHT_BLOB_OUTPUT_FILE: path.join(dir, 'blob-report', 'report-1.zip') }),
      );
      output = (await exec(process.execPath, [PW_CLI, 'merge-reports', '-c', 'merge.config.ts', './blob-report'], dir, env)).output;
    }
    const held = runs.filter((r) => r.name === name);
    expect(held, output).toHaveLength(1);
    expect(held[0].results).toEqual({ a: 'ok', b: 'bad', c: 'ok' });
    expect(held[0].posts).toBe(3); // one per key, retries and the two tests of "b" folded into one
    expect(output).toMatch(/Fake TMS: run "fake \w+" \(id \d+\) — 3 published: (ok 2, bad 1|bad 1, ok 2); 1 test not mapped/);
    const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(summary.targets.faketms).toMatchObject({ label: 'Fake TMS', published: 3, unsent: 0, errors: [], verify: { ok: true } });
    expect(output).not.toContain(TOKEN);
    expect(fs.existsSync(path.join(dir, 'outbox')) ? fs.readdirSync(path.join(dir, 'outbox')) : []).toEqual([]);
  });
});
