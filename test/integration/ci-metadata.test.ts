import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { evidenceReaders } from './evidence-helpers';
import { csRun, runPlaywright, testSandbox, zephyrCycles } from './harness';

/** What a created cycle / test run says of the CI run and of the projects that ran (live runs against the sandbox). */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
const { envFor } = evidenceReaders(() => sandbox);
/**
 * What a cycle / run says of its CI run does not depend on its results: one test per target, skipped where declared
 * (published as skipped; Playwright starts no worker for it). The shared evidence suite's failing test made
 * Playwright start two workers a run.
 */
const SUITE = {
  'ci.spec.ts': `const { test } = require('@playwright/test');\ntest.skip('catalogue works @cs-4 @PROJ-4', () => {});\n`,
};

describe('CI metadata and links (live)', () => {
  it('a cycle / run this reporter creates carries the CI build, environment and run link; the summary links to them', async () => {
    const name = 'evidence ci';
    const ci = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '987654',
      GITHUB_RUN_NUMBER: '42',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
      ZEPHYR_JIRA_URL: 'https://acme.atlassian.net',
      PW_TMS_ENVIRONMENT: 'staging',
    };
    const run = await runPlaywright({ files: SUITE, env: envFor(name, ci) });
    const cycle = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as {
      id: string;
      build: string;
      environment: string;
      description: string;
    };
    // The run id, not the run number: GitHub numbers runs per workflow, and two workflows' run 42 are two builds.
    expect(cycle.build).toBe('987654');
    expect(cycle.environment).toBe('staging');
    expect(cycle.description).toContain('https://github.com/acme/shop/actions/runs/987654');
    expect(cycle.description).toContain('main');
    expect(csRun(sandbox, name).description).toContain('https://github.com/acme/shop/actions/runs/987654');
    expect(run.summary?.targets.zephyr?.link).toMatch(/^https:\/\/acme\.atlassian\.net\/projects\/PROJ\?.*cycleId=/);
    expect(run.summary?.targets.zephyr?.link).toContain(cycle.id);
    expect(run.output).toContain(run.summary!.targets.zephyr!.link!);
    expect(run.summary?.targets.cucumberstudio?.link).toBe(`${sandbox.origin}/projects/1/test-runs/${csRun(sandbox, name).id}`);
    // A second run reuses both; the cycle names the build that published into it last (another build's results are stale).
    await runPlaywright({ files: SUITE, env: envFor(name, { ...ci, GITHUB_RUN_ID: '111', GITHUB_RUN_NUMBER: '43' }) });
    const again = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as { build: string; description: string };
    expect(again.build).toBe('111');
    expect(csRun(sandbox, name).description).toContain('987654');
  });
});

describe('projects (live)', () => {
  it('a created cycle names as its environment only the projects that ran (--project)', async () => {
    const name = 'evidence projects';
    await runPlaywright({
      files: { 'p.spec.ts': `const { test } = require('@playwright/test');\ntest('p', { tag: '@PROJ-95' }, () => {});` },
      projects: ['alpha', 'beta'],
      args: ['--project=alpha'],
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name },
    });
    const cycle = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as { environment: string };
    expect(cycle.environment).toBe('alpha');
  });
});
