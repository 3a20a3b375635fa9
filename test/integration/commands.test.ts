import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import {
  baseEnv,
  csRuns,
  exec,
  outboxFiles,
  REPO,
  runPlaywright,
  runReplay,
  tempDir,
  testSandbox,
  zephyrCycles,
  zephyrStatuses,
} from './harness';

const BIN = path.join(REPO, 'bin/playwright-tms-reporter.js');
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const cli = (args: string[], env: Record<string, string | undefined>) => exec(process.execPath, [BIN, ...args], REPO, baseEnv(env), 60_000);

describe('check', () => {
  it('passes on good env, one line per check', async () => {
    const r = await cli(['check'], { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'checked' });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('✓ Zephyr Squad: credentials and request signing (qsh round-trip) accepted');
    expect(r.output).toContain('✓ Zephyr Squad: project 10000 and version -1 found');
    expect(r.output).toContain('cycle "checked" does not exist yet and will be created');
    expect(r.output).toContain('✓ CucumberStudio: credentials accepted; project 1');
    expect(r.output).toContain('all checks passed');
    expect(r.output).not.toContain('✗');
  });

  it.each([
    ['wrong Zephyr secret', { ZEPHYR_SECRET_KEY: 'not-the-secret-123' }, 'ZEPHYR_SECRET_KEY'],
    ['base URL without /connect', { ZEPHYR_BASE_URL: 'BASE_NO_CONTEXT' }, 'ZEPHYR_BASE_URL'],
    ['unknown project', { ZEPHYR_PROJECT_ID: '99999' }, 'ZEPHYR_PROJECT_ID'],
    ['unknown version', { ZEPHYR_VERSION_ID: '4242' }, 'ZEPHYR_VERSION_ID'],
    ['unknown cycle id', { ZEPHYR_CYCLE_ID: 'no-such-cycle' }, 'ZEPHYR_CYCLE_ID'],
    ['non-numeric project', { ZEPHYR_PROJECT_ID: 'abc' }, 'zephyr.projectId (env ZEPHYR_PROJECT_ID)'],
    ['wrong CucumberStudio token', { CUCUMBERSTUDIO_ACCESS_TOKEN: 'nope-nope-nope' }, 'CUCUMBERSTUDIO_ACCESS_TOKEN'],
    ['unknown CucumberStudio project', { CUCUMBERSTUDIO_PROJECT_ID: '77' }, 'CUCUMBERSTUDIO_PROJECT_ID'],
    ['unknown test run id', { CUCUMBERSTUDIO_TEST_RUN_ID: '987654' }, 'CUCUMBERSTUDIO_TEST_RUN_ID'],
  ])('names the failing item: %s', async (_label, patch, needle) => {
    const env: Record<string, string> = { ...sandbox.env(), ...patch };
    if (env.ZEPHYR_BASE_URL === 'BASE_NO_CONTEXT') env.ZEPHYR_BASE_URL = sandbox.env().ZEPHYR_BASE_URL.replace(/\/connect$/, '');
    const r = await cli(['check'], env);
    expect(r.exitCode).toBe(1);
    const bad = r.output.split('\n').filter((l) => l.startsWith('✗'));
    expect(bad.length, r.output).toBeGreaterThanOrEqual(1);
    expect(bad.join('\n')).toContain(needle);
    expect(r.output).not.toMatch(/\n\s+at .+:\d+:\d+/);
    for (const s of [env.ZEPHYR_SECRET_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN]) expect(r.output).not.toContain(s);
  });

  it('fails with one line when nothing is configured', async () => {
    const r = await cli(['check'], {});
    expect(r.exitCode).toBe(1);
    expect(r.output).toContain('no target configured');
  });
});

describe('cycle create / test-run create', () => {
  it('print ids that shards then publish into, and a GitHub step summary is written', async () => {
    const env = { ...sandbox.env() };
    const cycle = await cli(['cycle', 'create', '--name', 'setup job'], env);
    expect(cycle.exitCode, cycle.output).toBe(0);
    const cycleId = cycle.output.trim().split('\n').pop()!;
    const again = await cli(['cycle', 'create', '--name', 'setup job'], env);
    expect(again.output.trim().split('\n').pop()).toBe(cycleId); // find-or-create: no second cycle
    const run = await cli(['test-run', 'create', '--name', 'setup job'], env);
    expect(run.exitCode, run.output).toBe(0);
    const runId = run.output.trim().split('\n').pop()!;
    expect(runId).toMatch(/^\d+$/);

    const dir = tempDir('step');
    const stepSummary = path.join(dir, 'step-summary.md');
    const files = { 'x.spec.ts': `const { test } = require('@playwright/test');\ntest('x', { tag: ['@PROJ-77', '@cs-77'] }, () => {});` };
    const res = await runPlaywright({
      files,
      dir,
      env: { ...env, ZEPHYR_CYCLE_ID: cycleId, CUCUMBERSTUDIO_TEST_RUN_ID: runId, GITHUB_STEP_SUMMARY: stepSummary },
    });
    expect(res.summary!.targets.zephyr).toMatchObject({ published: 1, container: { id: cycleId } });
    expect(zephyrStatuses(sandbox, 'setup job')).toEqual({ 'PROJ-77': 1 });
    expect(csRuns(sandbox, 'setup job')).toHaveLength(1);
    expect(csRuns(sandbox, 'setup job')[0].scenarioIds).toEqual([77]);
    const md = fs.readFileSync(stepSummary, 'utf8');
    expect(md).toContain('| Zephyr Squad | setup job');
    expect(md).toContain('| CucumberStudio | setup job');
  });

  it('a dry run creates nothing and prints no id', async () => {
    const env = { ...sandbox.env(), PW_TMS_DRY_RUN: '1' };
    const cycle = await cli(['cycle', 'create', '--name', 'dry setup'], env);
    expect(cycle.exitCode, cycle.output).toBe(0);
    expect(cycle.output).toContain('Zephyr Squad: dry run — would find or create cycle "dry setup"; nothing created');
    const run = await cli(['test-run', 'create', '--name', 'dry setup'], env);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('CucumberStudio: dry run — would find or create test run "dry setup"; nothing created');
    for (const r of [cycle, run]) expect(r.output.trim().split('\n').pop()).not.toMatch(/^[\w-]+$/);
    expect(zephyrCycles(sandbox).filter((c) => c.name === 'dry setup')).toEqual([]);
    expect(csRuns(sandbox, 'dry setup')).toEqual([]);
  });
});

describe('replay with the default outbox', () => {
  it('what a run could not send outlives the next run (Playwright empties test-results), and `replay` finds it', async () => {
    const dir = tempDir('outbox-default');
    const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    const files = {
      'o.spec.ts': `const { test } = require('@playwright/test');\ntest('o', { tag: '@PROJ-78' }, () => { throw new Error('o'); });`,
    };
    sandbox.setFaults('zephyr', { down: true });
    try {
      // PW_TMS_OUTBOX_DIR unset: the default folder.
      const down = await runPlaywright({
        files,
        dir,
        env: { ...zephyrOnly, ZEPHYR_CYCLE_NAME: 'kept a run', PW_TMS_OUTBOX_DIR: undefined, PW_TMS_PUBLISH_TIMEOUT: '3' },
      });
      // The line says what went wrong (the service gave no answer), not only that there was no time left: given up
      // after its tries, or, when the 3 s budget ends first (the tries began with the run), the request and its cause.
      expect(down.output).toMatch(/Zephyr Squad: (Zephyr unreachable: connection reset at \S+|GET \S+ failed: connection reset)/);
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    const journals = () => fs.readdirSync(path.join(dir, 'tms-outbox')).filter((f) => f.endsWith('.jsonl'));
    expect(journals()).toHaveLength(1);
    const next = await runPlaywright({
      files,
      dir,
      env: { ...zephyrOnly, ZEPHYR_CYCLE_NAME: 'the next run', PW_TMS_OUTBOX_DIR: undefined },
    });
    expect(next.summary!.targets.zephyr).toMatchObject({ published: 1, unsent: 0 });
    expect(journals()).toHaveLength(1);
    const replayed = await exec(process.execPath, [BIN, 'replay'], dir, baseEnv(zephyrOnly), 60_000);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(zephyrStatuses(sandbox, 'kept a run')).toEqual({ 'PROJ-78': 2 });
    expect(journals()).toEqual([]);
  });
});

describe('replay of what is not an outbox', () => {
  it('a folder that is not there, or a file, fails the command; a damaged journal line is reported', async () => {
    const dir = tempDir('replay-odd');
    const missing = await cli(['replay', path.join(dir, 'typo')], sandbox.env());
    expect(missing.exitCode).toBe(1);
    expect(missing.output).toContain('no such folder');
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, 'x');
    const notAFolder = await cli(['replay', file], sandbox.env());
    expect(notAFolder.exitCode).toBe(1);
    expect(notAFolder.output).toContain('is a file, not the outbox folder');
    expect(notAFolder.output).not.toMatch(/ENOTDIR|\n\s+at /);
    const outbox = path.join(dir, 'outbox');
    fs.mkdirSync(outbox);
    const meta = {
      t: 'meta',
      v: 2,
      runId: 'r',
      createdAt: new Date().toISOString(),
      targets: { zephyr: { settings: { projectId: 10000 }, containerName: 'damaged journal' } },
    };
    const test = { t: 'test', rec: { testId: 't1', title: 'a', keys: { zephyr: ['PROJ-96'] }, outcome: 'passed', attempts: 1 } };
    fs.writeFileSync(
      path.join(outbox, 'run-r.jsonl'),
      `${JSON.stringify(meta)}\n${JSON.stringify(test)}\n{"t":"test","rec":{"testId":"t2","ti`,
    );
    const damaged = await cli(['replay', outbox], sandbox.env());
    expect(damaged.exitCode, damaged.output).toBe(0);
    expect(damaged.output).toContain('1 line(s) could not be read');
    expect(zephyrStatuses(sandbox, 'damaged journal')).toEqual({ 'PROJ-96': 1 });
  });
});

describe('replay after fixing a wrong container id', () => {
  it('a cycle id the run never reached gives way to the one configured now', async () => {
    const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    const files = { 'w.spec.ts': `const { test } = require('@playwright/test');\ntest('w', { tag: '@PROJ-97' }, () => {});` };
    const run = await runPlaywright({ files, env: { ...zephyrOnly, ZEPHYR_CYCLE_ID: '00000000-dead-beef-0000-000000000000' } });
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 0, unsent: 1 });
    const created = await cli(['cycle', 'create', '--name', 'the right cycle'], zephyrOnly);
    const cycleId = created.output.trim().split('\n').pop()!;
    const replayed = await runReplay(run.outboxDir, { ...zephyrOnly, ZEPHYR_CYCLE_ID: cycleId });
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).toMatch(new RegExp(`Zephyr Squad: the run never reached cycle \\S+; replaying into ${cycleId}`));
    expect(zephyrStatuses(sandbox, 'the right cycle')).toEqual({ 'PROJ-97': 1 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });
});

describe('replay after fixing invalid settings', () => {
  it('lands in the cycle the run meant, not in one named after the replay', async () => {
    const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    const files = { 'i.spec.ts': `const { test } = require('@playwright/test');\ntest('i', { tag: '@PROJ-96' }, () => {});` };
    const run = await runPlaywright({ files, env: { ...zephyrOnly, ZEPHYR_CYCLE_NAME: 'meant for this', ZEPHYR_COMMENT_LIMIT: 'lots' } });
    expect(run.output).toContain('ZEPHYR_COMMENT_LIMIT');
    expect(run.summary!.targets.zephyr).toMatchObject({ enabled: false, unsent: 1 });
    // Fixed: the bad setting is gone, and nothing names the cycle any more.
    const replayed = await runReplay(run.outboxDir, zephyrOnly);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(zephyrStatuses(sandbox, 'meant for this')).toEqual({ 'PROJ-96': 1 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });
});

describe('usage', () => {
  it("`<command> --help` prints that command's usage; an unknown flag is named with it, in one line of ours", async () => {
    const help = await cli(['replay', '--help'], {});
    expect(help.exitCode).toBe(0);
    expect(help.output).toContain('replay [outboxDir]');
    expect(help.output).not.toContain('sandbox [--port');
    expect((await cli(['sandbox', '-h'], {})).output).toContain('sandbox [--port N]');
    const bad = await cli(['replay', '--dry-run'], {});
    expect(bad.exitCode).toBe(1);
    expect(bad.output).toContain("[tms-reporter] replay: Unknown option '--dry-run'");
    expect(bad.output).toContain('PW_TMS_DRY_RUN=1');
    expect(bad.output).not.toContain("after '--'");
  });

  it('an argument a command does not take is refused, never ignored (`cycle create Nightly-42` made a cycle under another name)', async () => {
    const env = sandbox.env();
    const before = sandbox.stats().zephyr.requests;
    const named = await cli(['cycle', 'create', 'Nightly-42'], env);
    expect(named.exitCode).toBe(1);
    expect(named.output).toContain('cycle create: unexpected "Nightly-42" (a name goes with --name NAME)');
    expect(sandbox.stats().zephyr.requests).toBe(before);
    const check = await cli(['check', '--bogus'], env);
    expect(check.exitCode).toBe(1);
    expect(check.output).toContain("[tms-reporter] check: Unknown option '--bogus'");
    const replay = await cli(['replay', 'a', 'b'], env);
    expect(replay.exitCode).toBe(1);
    expect(replay.output).toContain('replay takes one outbox folder, got 2: a b');
    const long = await cli(['cycle', 'create', '--name', 'n'.repeat(300)], env);
    expect(long.exitCode).toBe(1);
    expect(long.output).toContain('--name: is longer than 255 characters (300)');
    expect(long.output).not.toContain('ZEPHYR_CYCLE_NAME');
    const invalid = await cli(['cycle', 'create', '--name', 'ok'], { ...env, ZEPHYR_PROJECT_ID: 'abc' });
    expect(invalid.exitCode).toBe(1);
    expect(invalid.output).toContain('Zephyr Squad: settings invalid (see above)');
    expect(invalid.output).not.toContain('is not configured');
    expect(sandbox.stats().zephyr.requests).toBe(before);
    // Every config problem of `check` is counted, as its other failures are.
    const twoBad = await cli(['check'], { ...env, ZEPHYR_PROJECT_ID: 'abc', CUCUMBERSTUDIO_PROJECT_ID: 'shop' });
    expect(twoBad.exitCode).toBe(1);
    expect(twoBad.output).toContain('2 check(s) failed');
    const port = await cli(['sandbox', '--port', '99999'], {});
    expect([port.exitCode, port.output.trim()]).toEqual([1, '[tms-reporter] --port expects a number between 0 and 65535, got "99999"']);
    const status = await cli(['sandbox', '--former-host-status', '307'], {});
    expect(status.exitCode).toBe(1);
    expect(status.output).toContain('--former-host-status goes with --former-host');
    const version = await cli(['--version'], {});
    expect([version.exitCode, version.output.trim()]).toEqual([
      0,
      JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version,
    ]);
  });
});

describe('sandbox command', () => {
  it('--rate-limit SERVICE=N/SECONDS limits one service; N/SECONDS both', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [BIN, 'sandbox', '--port', '0', '--rate-limit', 'zephyr=30/60', '--rate-limit', 'cucumberstudio=200/60'],
      {
        cwd: REPO,
        env: baseEnv({}),
      },
    );
    try {
      let out = '';
      const origin = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`sandbox exited ${code}: ${out}`)));
      });
      const faults = (await (await fetch(`${origin}/__sandbox/faults`)).json()) as Record<string, { rateLimit: unknown }>;
      expect(faults.zephyr.rateLimit).toEqual({ count: 30, windowMs: 60_000 });
      expect(faults.cucumberstudio.rateLimit).toEqual({ count: 200, windowMs: 60_000 });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
