import { describe, expect, it } from 'vitest';
import { noTargetLine, resolveConfig as resolveWith, type ResolvedConfig } from '../../src/config/config';
import type { Env } from '../../src/kit/config-fields';
import { redact } from '../../src/http/errors';
import { TARGETS } from '../../src/targets';

const resolveConfig = (options: unknown, env: Env, rootDir?: string, now?: Date) =>
  resolveWith({ definitions: TARGETS, options, env, rootDir, now });
/** The resolved config of one target, or undefined when it is not enabled (or invalid). */
const cfg = (c: ResolvedConfig, id: string) => c.targets.find((t) => t.definition.id === id)?.config as Record<string, unknown> | undefined;

const Z = { ZEPHYR_ACCESS_KEY: 'ak-1234', ZEPHYR_SECRET_KEY: 'sk-secret-1234', ZEPHYR_ACCOUNT_ID: 'acc', ZEPHYR_PROJECT_ID: '10000' };
const C = {
  CUCUMBERSTUDIO_UID: 'u@example.com',
  CUCUMBERSTUDIO_ACCESS_TOKEN: 'tok-secret',
  CUCUMBERSTUDIO_CLIENT: 'cl',
  CUCUMBERSTUDIO_PROJECT_ID: '1',
};

describe('config', () => {
  it('no credentials: no target, no problem', () => {
    const c = resolveConfig({}, {});
    expect(cfg(c, 'zephyr')).toBeUndefined();
    expect(cfg(c, 'cucumberstudio')).toBeUndefined();
    expect(c.problems).toEqual([]);
  });
  it('env enables targets; options override env', () => {
    const c = resolveConfig({ zephyr: { projectId: 20000, cycleName: 'Nightly' } }, { ...Z, ...C, ZEPHYR_CYCLE_NAME: 'from env' }, '/r');
    expect(cfg(c, 'zephyr')).toMatchObject({
      projectId: 20000,
      versionId: -1,
      cycleName: 'Nightly',
      baseUrl: 'https://prod-api.zephyr4jiracloud.com/connect',
      failureComments: true,
    });
    expect(cfg(c, 'cucumberstudio')).toMatchObject({
      projectId: 1,
      baseUrl: 'https://studio.cucumberstudio.com',
      rateLimit: { count: 195, windowMs: 60000 },
    });
    expect(c.outboxDir).toBe('/r/tms-outbox');
    expect(c.secrets).toEqual(expect.arrayContaining(['sk-secret-1234', 'tok-secret']));
  });
  it('default names derive from the CI build so that shards agree', () => {
    const env = { ...Z, GITHUB_RUN_ID: '777', GITHUB_RUN_ATTEMPT: '2', GITHUB_RUN_NUMBER: '41', GITHUB_WORKFLOW: 'e2e' };
    expect(cfg(resolveConfig({}, env), 'zephyr')?.cycleName).toBe('Playwright e2e #41 (run 777, attempt 2)');
    expect(cfg(resolveConfig({}, { ...Z, GITLAB_CI: 'true', CI_PIPELINE_ID: '9' }), 'zephyr')?.cycleName).toBe('Playwright pipeline 9');
    expect(cfg(resolveConfig({}, Z, '/', new Date(2026, 0, 2, 3, 4)), 'zephyr')?.cycleName).toBe('Playwright 2026-01-02 03:04');
  });
  it.each([
    [{ ZEPHYR_PROJECT_ID: 'abc' }, {}, 'zephyr.projectId (env ZEPHYR_PROJECT_ID): expected a whole number'],
    [{ ZEPHYR_PROJECT_ID: undefined }, {}, 'zephyr.projectId (env ZEPHYR_PROJECT_ID): is required'],
    [{ ZEPHYR_SECRET_KEY: undefined }, {}, 'zephyr.secretKey (env ZEPHYR_SECRET_KEY): is required'],
    [{ ZEPHYR_ACCOUNT_ID: undefined }, {}, 'zephyr.accountId (env ZEPHYR_ACCOUNT_ID): is required'],
    [{ ZEPHYR_BASE_URL: 'prod-api.zephyr4jiracloud.com' }, {}, 'zephyr.baseUrl (env ZEPHYR_BASE_URL): expected an http(s) URL'],
    [
      { ZEPHYR_BASE_URL: 'http://prod-api.zephyr4jiracloud.com/connect' },
      {},
      'zephyr.baseUrl (env ZEPHYR_BASE_URL): plain http to prod-api.zephyr4jiracloud.com would send the credentials unencrypted',
    ],
    [{ ZEPHYR_VERSION_ID: '1.0' }, {}, 'zephyr.versionId (env ZEPHYR_VERSION_ID): expected a whole number'],
    [{ ZEPHYR_FAILURE_COMMENTS: 'maybe' }, {}, 'zephyr.failureComments (env ZEPHYR_FAILURE_COMMENTS): expected true/false'],
    [{}, { zephyr: { statusMap: { broken: 'FAIL' } } }, 'zephyr.statusMap.broken: unknown outcome'],
    [{}, { zephyr: { statusMap: { failed: {} } } }, 'zephyr.statusMap.failed: expected a status id or name'],
  ])('bad input %j %j -> one line naming option and env var', (envPatch, options, line) => {
    const c = resolveConfig(options, { ...Z, ...envPatch });
    expect(c.problems).toHaveLength(1);
    expect(c.problems[0]).toContain(line);
    expect(cfg(c, 'zephyr')).toBeUndefined();
    expect(c.invalid.map((d) => d.id)).toEqual(['zephyr']);
    expect(c.problems.join('\n')).not.toContain('sk-secret-1234');
  });

  it('a key of the wrong type is one line, not also "is required"', () => {
    const c = resolveConfig({ zephyr: { accessKey: 12345 } }, Z);
    expect(c.problems).toEqual(['zephyr.accessKey (env ZEPHYR_ACCESS_KEY): expected a string, got number']);
    expect(c.invalid.map((d) => d.id)).toEqual(['zephyr']);
  });
  it('a secret inside a longer one leaves nothing of the longer one showing', () => {
    const c = resolveConfig({}, { ...Z, ZEPHYR_SECRET_KEY: 'sk-secret', ZEPHYR_ACCESS_KEY: 'sk-secret-and-access' });
    expect(redact('key sk-secret-and-access', c.secrets)).toBe('key [redacted]');
  });
  it('plain http is taken for a local host (the sandbox, a compose service), not for one across the internet', () => {
    for (const url of [
      'http://127.0.0.1:4010/connect',
      'http://localhost:4010/connect',
      'http://[::1]:4010/connect',
      'http://tms-sandbox:4010/connect',
    ])
      expect(resolveConfig({}, { ...Z, ZEPHYR_BASE_URL: url }).problems).toEqual([]);
    expect(resolveConfig({}, { ...C, CUCUMBERSTUDIO_BASE_URL: 'http://studio.cucumberstudio.com' }).problems[0]).toContain(
      'cucumberstudio.baseUrl (env CUCUMBERSTUDIO_BASE_URL): plain http to studio.cucumberstudio.com',
    );
  });
  it("a CucumberStudio statusMap value is asked for as one of the service's status names (it has no ids)", () => {
    const c = resolveConfig({ cucumberstudio: { statusMap: { failed: { name: 'retest' } } } }, C);
    expect(c.problems).toEqual([
      'cucumberstudio.statusMap.failed: expected a status name (passed, failed, retest, undefined, blocked, skipped, wip), got {"name":"retest"}',
    ]);
  });
  it('a status name CucumberStudio does not have holds the target back, as a typo in an outcome key does', () => {
    for (const statusMap of [{ passed: 'green' }, { flakey: 'passed' }]) {
      const c = resolveConfig({ cucumberstudio: { statusMap } }, C);
      expect(cfg(c, 'cucumberstudio')).toBeUndefined();
      expect(c.invalid.map((d) => d.id)).toEqual(['cucumberstudio']);
      expect(c.problems).toHaveLength(1);
    }
    expect(resolveConfig({ cucumberstudio: { statusMap: { passed: 'green' } } }, C).problems[0]).toBe(
      'cucumberstudio.statusMap.passed: CucumberStudio has no status "green"; use one of passed, failed, retest, undefined, blocked, skipped, wip',
    );
    // Names are the service's, in any case.
    expect(cfg(resolveConfig({ cucumberstudio: { statusMap: { failed: 'Retest' } } }, C), 'cucumberstudio')).toBeDefined();
  });
  it('`zephyr: false` and ZEPHYR_ENABLED=false switch a target off, whatever credentials the environment holds', () => {
    for (const [options, env] of [
      [{ zephyr: false }, { ...Z, ...C }],
      [{ zephyr: { cycleName: 'x' } }, { ...Z, ...C, ZEPHYR_ENABLED: 'false' }],
      [{}, { ...Z, ...C, ZEPHYR_ENABLED: '0' }],
    ] as const) {
      const c = resolveConfig(options, env);
      expect(c.problems).toEqual([]);
      expect(cfg(c, 'zephyr')).toBeUndefined();
      expect(c.invalid).toEqual([]);
      expect(c.off.map((d) => d.id)).toEqual(['zephyr']);
      expect(cfg(c, 'cucumberstudio')).toBeDefined();
      // Still redacted: the keys are in the environment.
      expect(c.secrets).toContain('sk-secret-1234');
    }
    const both = resolveConfig({ cucumberstudio: false }, { ...Z, ...C, ZEPHYR_ENABLED: 'no' });
    expect(both.targets).toEqual([]);
    expect(both.off.map((d) => d.id)).toEqual(['zephyr', 'cucumberstudio']);
    // The run's one line names what switched them off, and asks for credentials only for the others.
    expect(noTargetLine(both)).toBe(
      'no target enabled (Zephyr Squad switched off by zephyr: false or ZEPHYR_ENABLED; CucumberStudio switched off by ' +
        'cucumberstudio: false or CUCUMBERSTUDIO_ENABLED; set XRAY_CLIENT_ID/XRAY_CLIENT_SECRET); nothing will be published',
    );
    // `true` is on as usual; an unreadable switch is off, with one line.
    expect(cfg(resolveConfig({ zephyr: true }, Z), 'zephyr')).toBeDefined();
    const unreadable = resolveConfig({}, { ...Z, ZEPHYR_ENABLED: 'nope' });
    expect(cfg(unreadable, 'zephyr')).toBeUndefined();
    expect(unreadable.problems).toEqual([
      'zephyr (env ZEPHYR_ENABLED): expected true/false (or 1/0), got "nope"; taken as false: switched off',
    ]);
    expect(resolveConfig({ zephyr: 'on' }, Z).problems).toEqual(['zephyr: expected an object, or false to switch it off; ignored']);
  });
  it('warns about unknown and misspelt options without disabling', () => {
    const c = resolveConfig({ outboxdir: 'x', zephyr: { acessKey: 'k' } }, Z);
    expect(c.problems).toEqual([
      expect.stringContaining('outboxdir: unknown option (did you mean outboxDir?)'),
      expect.stringContaining('zephyr.acessKey: unknown option (did you mean zephyr.accessKey?)'),
    ]);
    expect(cfg(c, 'zephyr')).toBeDefined();
  });
  it('general flags', () => {
    const c = resolveConfig({}, { PW_TMS_DRY_RUN: '1', PW_TMS_FAIL_ON_ERROR: 'true', PW_TMS_DEBUG: '0', PW_TMS_OUTBOX_DIR: '/tmp/o' });
    expect(c).toMatchObject({ dryRun: true, failOnPublishError: true, debug: false, outboxDir: '/tmp/o' });
    expect(resolveConfig({ dryRun: 'yes please' }, {}).problems[0]).toContain('dryRun (env PW_TMS_DRY_RUN)');
    // A dry run asked for with a value it cannot read is a dry run (publishing would write to the services).
    const misspelt = resolveConfig({}, { PW_TMS_DRY_RUN: 'enabled', PW_TMS_DEBUG: 'verbose' });
    expect(misspelt).toMatchObject({ dryRun: true, debug: false });
    expect(misspelt.problems).toContainEqual(
      expect.stringMatching(/^dryRun \(env PW_TMS_DRY_RUN\): expected true\/false .*"enabled"; taken as true: a dry run$/),
    );
  });
  it('evidence and run info: options > env > CI / projects', () => {
    const c = resolveWith({
      definitions: TARGETS,
      options: { attachments: 'all' },
      env: {
        PW_TMS_ATTACHMENT_MAX_BYTES: '100',
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '9',
        GITHUB_RUN_NUMBER: '3',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_SHA: 'abc',
      },
      projects: ['chromium', 'firefox', 'chromium'],
    });
    expect(c.evidence).toEqual({ attachments: 'all', maxBytes: 100 });
    expect(c.runInfo).toEqual({
      build: '9', // the run id: GitHub numbers runs per workflow
      environment: 'chromium, firefox',
      description: expect.stringContaining('https://github.com/o/r/actions/runs/9'),
    });
    expect(resolveConfig({}, { PW_TMS_BUILD: 'b7', PW_TMS_ENVIRONMENT: 'staging', PW_TMS_DESCRIPTION: 'nightly' }).runInfo).toEqual({
      build: 'b7',
      environment: 'staging',
      description: 'nightly',
    });
    expect(resolveConfig({}, {}).evidence).toEqual({ attachments: 'failed', maxBytes: 10485760 });
    expect(resolveConfig({ attachments: 'some' }, {}).problems[0]).toContain(
      'attachments (env PW_TMS_ATTACHMENTS): expected one of failed, all, none',
    );
  });
});
