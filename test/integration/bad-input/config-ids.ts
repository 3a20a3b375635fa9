/** Bad configuration: missing ids, wrong credentials, containers, base paths, statuses. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'vitest';
import { csRuns, outboxFiles, zephyrCycles } from '../harness';
import { type Group } from './shared';

const STATUS_RUN = 'bad-input unknown statuses';

export const CONFIG_IDS: Group[] = [
  {
    label: 'missing ids (1)',
    env: (sb) => ({
      ...sb.env(),
      ZEPHYR_ACCOUNT_ID: undefined,
      ZEPHYR_PROJECT_ID: undefined,
      CUCUMBERSTUDIO_CLIENT: undefined,
      CUCUMBERSTUDIO_PROJECT_ID: undefined,
    }),
    cases: [
      {
        id: 'zephyr-accountId-missing',
        kind: 'config',
        title: 'ZEPHYR_ACCOUNT_ID missing',
        line: /is required/,
        names: ['zephyr.accountId', 'ZEPHYR_ACCOUNT_ID'],
      },
      {
        id: 'cs-client-missing',
        kind: 'config',
        title: 'CUCUMBERSTUDIO_CLIENT missing',
        line: /is required/,
        names: ['cucumberstudio.client', 'CUCUMBERSTUDIO_CLIENT'],
      },
      {
        id: 'zephyr-two-missing',
        kind: 'config',
        title: 'ZEPHYR_PROJECT_ID missing as well as ZEPHYR_ACCOUNT_ID',
        line: /is required/,
        names: ['zephyr.projectId', 'ZEPHYR_PROJECT_ID'],
      },
      {
        id: 'cs-two-missing',
        kind: 'config',
        title: 'CUCUMBERSTUDIO_PROJECT_ID missing as well as CUCUMBERSTUDIO_CLIENT',
        line: /is required/,
        names: ['cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID'],
      },
    ],
  },
  {
    label: 'missing ids (2)',
    env: (sb) => ({ ...sb.env(), ZEPHYR_SECRET_KEY: undefined, CUCUMBERSTUDIO_PROJECT_ID: undefined }),
    cases: [
      {
        id: 'zephyr-secret-missing',
        kind: 'config',
        title: 'ZEPHYR_SECRET_KEY missing (access key set)',
        line: /is required/,
        names: ['zephyr.secretKey', 'ZEPHYR_SECRET_KEY'],
      },
      {
        id: 'cs-projectId-missing',
        kind: 'config',
        title: 'CUCUMBERSTUDIO_PROJECT_ID missing',
        line: /is required/,
        names: ['cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID'],
      },
    ],
  },
  {
    label: 'missing ids (3)',
    env: (sb) => ({ ...sb.env(), ZEPHYR_PROJECT_ID: undefined, CUCUMBERSTUDIO_UID: undefined }),
    cases: [
      {
        id: 'zephyr-projectId-missing',
        kind: 'config',
        title: 'ZEPHYR_PROJECT_ID missing',
        line: /is required/,
        names: ['zephyr.projectId', 'ZEPHYR_PROJECT_ID'],
      },
      {
        id: 'cs-uid-missing',
        kind: 'config',
        title: 'CUCUMBERSTUDIO_UID missing (token set)',
        line: /is required/,
        names: ['cucumberstudio.uid', 'CUCUMBERSTUDIO_UID'],
      },
    ],
  },
  // ---------------------------------------------------------------- config the service rejects
  {
    label: 'wrong credentials',
    env: (sb) => ({
      ...sb.env(),
      ZEPHYR_SECRET_KEY: 'wrong-secret-0123456789abcdef',
      CUCUMBERSTUDIO_ACCESS_TOKEN: 'wrong-token-0123456789',
    }),
    secrets: ['wrong-secret-0123456789abcdef', 'wrong-token-0123456789'],
    cases: [
      {
        id: 'zephyr-wrong-secret',
        kind: 'config',
        title: 'wrong Zephyr secret (401)',
        line: /Zephyr.*rejected the credentials/,
        names: ['ZEPHYR_SECRET_KEY', 'secretKey'],
      },
      {
        id: 'cs-wrong-credentials',
        kind: 'config',
        title: 'wrong CucumberStudio access token (401)',
        line: /CucumberStudio rejected the credentials/,
        names: ['CUCUMBERSTUDIO_ACCESS_TOKEN', 'accessToken'],
      },
    ],
  },
  {
    label: 'wrong access key / uid',
    env: (sb) => ({ ...sb.env(), ZEPHYR_ACCESS_KEY: 'amlyYTp1bmtub3duLWtleS1mb3ItdGVzdHM=', CUCUMBERSTUDIO_UID: 'nobody@example.com' }),
    secrets: ['amlyYTp1bmtub3duLWtleS1mb3ItdGVzdHM='],
    cases: [
      {
        id: 'zephyr-wrong-accessKey',
        kind: 'config',
        title: 'unknown Zephyr access key (401)',
        line: /Zephyr.*rejected the credentials/,
        names: ['ZEPHYR_ACCESS_KEY', 'zephyr.accessKey'],
      },
      {
        id: 'cs-wrong-uid',
        kind: 'config',
        title: 'wrong CucumberStudio uid (401)',
        line: /CucumberStudio rejected the credentials/,
        names: ['CUCUMBERSTUDIO_UID', 'cucumberstudio.uid'],
      },
    ],
  },
  {
    label: 'nonexistent containers',
    env: (sb) => ({ ...sb.env(), ZEPHYR_CYCLE_ID: '999999', CUCUMBERSTUDIO_TEST_RUN_ID: '99999' }),
    cases: [
      {
        id: 'zephyr-cycleId-unknown',
        kind: 'config',
        title: 'nonexistent ZEPHYR_CYCLE_ID',
        line: /Zephyr.*999999/,
        names: ['zephyr.cycleId', 'ZEPHYR_CYCLE_ID'],
      },
      {
        id: 'cs-testRunId-unknown',
        kind: 'config',
        title: 'nonexistent CUCUMBERSTUDIO_TEST_RUN_ID',
        line: /no test run 99999/,
        names: ['cucumberstudio.testRunId', 'CUCUMBERSTUDIO_TEST_RUN_ID'],
      },
    ],
  },
  {
    label: 'wrong base paths',
    env: (sb) => ({
      ...sb.env(),
      ZEPHYR_BASE_URL: sb.env().ZEPHYR_BASE_URL.replace(/\/connect$/, ''),
      CUCUMBERSTUDIO_BASE_URL: `${sb.origin}/api`,
    }),
    cases: [
      {
        id: 'zephyr-baseUrl-no-connect',
        kind: 'config',
        title: 'ZEPHYR_BASE_URL without /connect',
        line: /Zephyr.*(qsh|404)/,
        names: ['zephyr.baseUrl', 'ZEPHYR_BASE_URL'],
      },
      {
        id: 'cs-baseUrl-api',
        kind: 'config',
        title: 'CUCUMBERSTUDIO_BASE_URL ending in /api',
        line: /CucumberStudio.*404/,
        names: ['cucumberstudio.baseUrl', 'CUCUMBERSTUDIO_BASE_URL'],
      },
    ],
  },
  {
    label: 'nonexistent project / version',
    env: (sb) => ({ ...sb.env(), ZEPHYR_PROJECT_ID: '12345', ZEPHYR_VERSION_ID: '777', CUCUMBERSTUDIO_PROJECT_ID: '999' }),
    // The services refused them: the journal says so, and a replay takes them from the fixed config, not the run.
    after: (_sb, run) => {
      const journals = outboxFiles(run.outboxDir);
      expect(journals).toHaveLength(1);
      const text = fs.readFileSync(path.join(run.outboxDir, journals[0]), 'utf8');
      expect(text).toContain('{"t":"unresolved","target":"zephyr","settings":["projectId","versionId"]}');
      expect(text).toContain('{"t":"unresolved","target":"cucumberstudio","settings":["projectId"]}');
    },
    cases: [
      {
        id: 'zephyr-project-unknown',
        kind: 'config',
        title: 'nonexistent Zephyr project/version id',
        line: /Zephyr.*(12345|777)/,
        names: ['ZEPHYR_PROJECT_ID'],
      },
      {
        id: 'cs-project-unknown',
        kind: 'config',
        title: 'nonexistent CucumberStudio project id',
        line: /CucumberStudio has no project 999/,
        names: ['cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID'],
      },
    ],
  },
  {
    label: 'unknown status names',
    instance: true,
    // Named: other instances of the shared run publish into the same sandbox (under the default names).
    options: {
      zephyr: { statusMap: { passed: 'GREEN' }, cycleName: STATUS_RUN },
      cucumberstudio: { statusMap: { passed: 'green' }, testRunName: STATUS_RUN },
    },
    // Refused like a typo in an outcome key: nothing goes out as the default status, the results wait for replay.
    after: (sb, run) => {
      expect(zephyrCycles(sb).filter((c) => c.name === STATUS_RUN)).toEqual([]);
      expect(csRuns(sb, STATUS_RUN)).toEqual([]);
      const journals = outboxFiles(run.outboxDir);
      expect(journals).toHaveLength(1);
      const text = fs.readFileSync(path.join(run.outboxDir, journals[0]), 'utf8');
      expect(text).not.toContain('"t":"complete"');
      // The service refused the run's statusMap: a replay takes it from the fixed config.
      expect(text).toContain('{"t":"unresolved","target":"zephyr","settings":["statusMap"]}');
    },
    cases: [
      {
        id: 'zephyr-status-unknown',
        kind: 'config',
        title: 'statusMap name Zephyr does not know',
        line: /Zephyr has no status "GREEN"/,
        names: ['zephyr.statusMap.passed'],
      },
      {
        id: 'cs-status-unknown',
        kind: 'config',
        title: 'statusMap name CucumberStudio does not know',
        line: /CucumberStudio has no status "green"/,
        names: ['cucumberstudio.statusMap.passed'],
      },
    ],
  },
  // ---------------------------------------------------------------- bad service answers
];
