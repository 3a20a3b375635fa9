/** Bad service answers (2): 423 forever, job tokens and job errors, 429 without a hint. */
import { expect } from 'vitest';
import { zephyrCycles } from '../harness';
import { CS, HTML_LOGIN, JSON_HDR, JSONAPI_HDR, type Group } from './shared';

export const RESPONSES_2: Group[] = [
  {
    label: '200 HTML / 423 forever',
    env: (sb) => ({ ...sb.env(), CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS: '1500' }),
    overrides: {
      zephyr: [{ method: 'GET', pathIncludes: '/cycles/search', status: 200, body: HTML_LOGIN, headers: { 'content-type': 'text/html' } }],
      cucumberstudio: [
        {
          method: 'GET',
          pathIncludes: '/test_snapshots',
          status: 423,
          body: '{"errors":[{"status":"423","title":"Locked"}]}',
          headers: JSONAPI_HDR,
        },
      ],
    },
    cases: [
      { id: 'z-200-html', kind: 'response', title: 'Zephyr: 200 with an HTML login page', line: /Zephyr.*HTML page/ },
      {
        id: 'cs-423-timeout',
        kind: 'response',
        title: 'CucumberStudio: 423 past the snapshot timeout',
        line: /still being generated.*CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS/,
      },
    ],
  },
  {
    label: 'job token missing / wrong JSON shape',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [{ method: 'POST', pathIncludes: '/executions/add/cycle/', status: 200, body: '', headers: JSON_HDR }],
      cucumberstudio: [
        {
          method: 'GET',
          pathIncludes: '/test_snapshots',
          status: 200,
          body: '{"data":{"id":"1","type":"test-snapshots"},"meta":"unexpected"}',
          headers: JSONAPI_HDR,
        },
      ],
    },
    cases: [
      {
        id: 'z-job-token-missing',
        kind: 'response',
        title: 'Zephyr: add-tests answers without a job token',
        line: /Zephyr.*without a job token/,
      },
      {
        id: 'cs-unexpected-shape',
        kind: 'response',
        title: 'CucumberStudio: test list of an unexpected shape',
        line: /CucumberStudio.*GET \/api\/projects\/1\/test_runs\/\d+\/test_snapshots.*(unexpected|expected)/,
      },
    ],
  },
  {
    label: 'wrong JSON shape / job error',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [{ method: 'GET', pathIncludes: '/cycles/search', status: 200, body: '{"cycles":[]}', headers: JSON_HDR }],
    },
    cases: [
      {
        id: 'z-unexpected-shape',
        kind: 'response',
        title: 'Zephyr: cycle search answered as an object instead of a list',
        line: /Zephyr.*cycles\/search.*(unexpected|expected)/,
      },
    ],
  },
  {
    label: 'job failed',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [
        {
          method: 'GET',
          pathIncludes: '/jobprogress/',
          status: 200,
          body: '{"progress":1,"errorMessage":"Job failed: index unavailable"}',
          headers: JSON_HDR,
        },
      ],
    },
    cases: [
      {
        id: 'z-job-error',
        kind: 'response',
        title: 'Zephyr: job progress reports an error',
        line: /Zephyr.*Job failed: index unavailable/,
      },
    ],
  },
  {
    label: '429 without hint (recovers)',
    // Checks the two results published as passed.
    passing: true,
    env: (sb) => ({ ...sb.env(), ZEPHYR_CYCLE_NAME: 'bad-input 429', CUCUMBERSTUDIO_TEST_RUN_NAME: 'bad-input 429' }),
    overrides: {
      zephyr: [
        {
          method: 'GET',
          pathIncludes: '/cycles/search',
          status: 429,
          body: '{"errorType":"ERROR","clientMessage":"Too many requests","errorCode":429}',
          headers: JSON_HDR,
          times: 2,
        },
      ],
      cucumberstudio: [
        {
          method: 'GET',
          pathEquals: CS,
          status: 429,
          body: '{"errors":[{"status":"429","title":"Too Many Requests"}]}',
          headers: JSONAPI_HDR,
          times: 1,
        },
      ],
    },
    after: (sb) => {
      const cycles = zephyrCycles(sb).filter((c) => c.name === 'bad-input 429');
      expect(cycles).toHaveLength(1);
      expect(cycles[0].executions.map((e) => [e.issueKey, e.statusId]).sort()).toEqual([
        ['PROJ-1', 1],
        ['PROJ-2', 1],
      ]);
    },
    cases: [
      {
        id: 'z-429-nohint',
        kind: 'response',
        title: 'Zephyr: 429 without wait hint, twice (waits, then publishes)',
        line: /Zephyr Squad: cycle "bad-input 429".* 2 published: PASS 2/,
      },
      {
        id: 'cs-429-nohint',
        kind: 'response',
        title: 'CucumberStudio: 429 without Retry-After (waits, then publishes)',
        line: /CucumberStudio: test run "bad-input 429".* 2 published: passed 2/,
      },
    ],
  },
];
