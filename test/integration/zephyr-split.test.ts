import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, runReplay, testSandbox, zephyrCycles, type Mode, type ZExecution } from './harness';

/**
 * Zephyr split mode (`projects: 'split'`): one folder per Playwright project in the cycle, named as the project,
 * holding that project's own executions — in one process, as a job per project of one CI build, through blob →
 * merge-reports, and after an outage through `replay`. Only Zephyr is enabled: split mode needs every enabled
 * target to keep projects apart.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox?.close());

const PASS = 1;
const FAIL = 2;

/** PROJ-801 fails in beta only, PROJ-802 in alpha only, PROJ-803 passes in both. */
const files = {
  's.spec.ts': `import { test } from '@playwright/test';
const failsIn: Record<number, string> = { 801: 'beta', 802: 'alpha' };
for (const id of [801, 802, 803])
  test('z' + id, { tag: '@PROJ-' + id }, () => {
    if (failsIn[id] === test.info().project.name) throw new Error('fails in ' + test.info().project.name);
  });`,
};
const EXPECTED = {
  alpha: { 'PROJ-801': PASS, 'PROJ-802': FAIL, 'PROJ-803': PASS },
  beta: { 'PROJ-801': FAIL, 'PROJ-802': PASS, 'PROJ-803': PASS },
};
const zEnv = (cycleName: string) => ({
  ...Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !/^(CUCUMBERSTUDIO|XRAY)_/.test(k))),
  ZEPHYR_CYCLE_NAME: cycleName,
  PW_TMS_PROJECTS: 'split',
});
const publish = (cycleName: string, build: string | undefined, o: { args?: string[]; mode?: Mode; env?: Record<string, string> } = {}) =>
  runPlaywright({
    files,
    projects: ['alpha', 'beta'],
    mode: o.mode,
    args: o.args,
    env: { ...zEnv(cycleName), ...(build ? { PW_TMS_BUILD: build } : {}), ...o.env },
  });

type ZFolder = { name: string; executions: ZExecution[] };

/** Folder name -> key -> status; the cycle's root must hold nothing (every project here has a name). */
function byFolder(cycleName: string): Record<string, Record<string, number>> {
  const cycles = zephyrCycles(sandbox).filter((c) => c.name === cycleName);
  expect(cycles).toHaveLength(1);
  const cycle = cycles[0] as (typeof cycles)[0] & { folders: ZFolder[] };
  expect(cycle.executions, 'executions in the cycle root').toEqual([]);
  const out: Record<string, Record<string, number>> = {};
  for (const folder of cycle.folders) {
    out[folder.name] = {};
    for (const e of folder.executions) {
      expect(out[folder.name], `a second execution of ${e.issueKey} in folder "${folder.name}"`).not.toHaveProperty(e.issueKey);
      out[folder.name][e.issueKey] = e.statusId;
    }
  }
  return out;
}

it('one process: a folder per project with its own statuses, a summary line per project; the dry run names the folders', async () => {
  const dry = await publish('zsplit dry', undefined, { env: { PW_TMS_DRY_RUN: '1' } });
  expect(dry.output).toContain('would publish into folder "alpha" of cycle "zsplit dry" (found by name, or created)');
  expect(dry.output).toContain('would publish into folder "beta" of cycle "zsplit dry" (found by name, or created)');
  expect(zephyrCycles(sandbox).filter((c) => c.name === 'zsplit dry')).toEqual([]);

  // A local run (no CI build): the read-back compares the cycle's counts, which include the folders'.
  const one = await publish('zsplit one', undefined);
  const summary = one.summary!.targets.zephyr;
  expect(summary, one.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(summary.byPlace).toEqual({
    alpha: { published: 3, countsByStatus: { PASS: 2, FAIL: 1 } },
    beta: { published: 3, countsByStatus: { PASS: 2, FAIL: 1 } },
  });
  expect(byFolder('zsplit one')).toEqual(EXPECTED);
});

it('a job per project of one CI build, then both again: the same two folders, reused by name', async () => {
  const alpha = await publish('zsplit jobs', 'zci 2', { args: ['--project=alpha'] });
  expect(alpha.summary!.targets.zephyr, alpha.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  const beta = await publish('zsplit jobs', 'zci 2', { args: ['--project=beta'] });
  expect(beta.summary!.targets.zephyr, beta.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  expect(byFolder('zsplit jobs')).toEqual(EXPECTED);
  const both = await publish('zsplit jobs', 'zci 2');
  expect(both.summary!.targets.zephyr, both.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(Object.keys(byFolder('zsplit jobs')).sort()).toEqual(['alpha', 'beta']);
  expect(byFolder('zsplit jobs')).toEqual(EXPECTED);
});

it('through blob and merge-reports: the same folders and statuses', async () => {
  const merged = await publish('zsplit blob', 'zci 3', { mode: 'merge' });
  expect(merged.summary!.targets.zephyr, merged.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(byFolder('zsplit blob')).toEqual(EXPECTED);
});

it('an outage, then replay: into the same folders', async () => {
  sandbox.setFaults('zephyr', { down: true });
  let down;
  try {
    down = await publish('zsplit replay', 'zci 4', { env: { PW_TMS_PUBLISH_TIMEOUT: '3' } });
  } finally {
    sandbox.setFaults('zephyr', { down: false });
  }
  expect(down.summary!.targets.zephyr).toMatchObject({ published: 0, unsent: 6 });
  // The replay's own env names no CI build and no projects mode: both come from the journal.
  const { PW_TMS_PROJECTS: _mode, ...env } = zEnv('zsplit replay');
  const replay = await runReplay(down.outboxDir, env);
  expect(replay.exitCode, replay.output).toBe(0);
  expect(byFolder('zsplit replay')).toEqual(EXPECTED);
});
