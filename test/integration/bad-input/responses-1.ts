/** Bad service answers (1): HTML pages, empty and truncated bodies, 401/403/404, non-JSON 500s. */
import { CS, HTML_502, HTML_LOGIN, JSON_HDR, JSONAPI_HDR, Z, type Group } from './shared';

export const RESPONSES_1: Group[] = [
  {
    label: 'HTML 502 pages',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [{ method: 'GET', pathIncludes: '/cycles/search', status: 502, body: HTML_502, headers: { 'content-type': 'text/html' } }],
      cucumberstudio: [{ method: 'GET', pathEquals: CS, status: 502, body: HTML_502, headers: { 'content-type': 'text/html' } }],
    },
    cases: [
      { id: 'z-html-502', kind: 'response', title: 'Zephyr: HTML 502 page (persistent)', line: /Zephyr.*HTTP 502 and an HTML page/ },
      {
        id: 'cs-html-502',
        kind: 'response',
        title: 'CucumberStudio: HTML 502 page (persistent)',
        line: /CucumberStudio.*HTTP 502 and an HTML page/,
      },
    ],
  },
  {
    label: 'empty bodies',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [{ method: 'GET', pathIncludes: '/cycles/search', status: 200, body: '' }],
      cucumberstudio: [{ method: 'GET', pathIncludes: '/test_snapshots', status: 200, body: '', headers: JSONAPI_HDR }],
    },
    cases: [
      { id: 'z-empty-body', kind: 'response', title: 'Zephyr: 200 with an empty body', line: /Zephyr.*empty body/ },
      {
        id: 'cs-empty-body',
        kind: 'response',
        title: 'CucumberStudio: 200 with an empty body (test list)',
        line: /CucumberStudio.*empty/,
      },
    ],
  },
  {
    label: 'truncated JSON',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [{ method: 'GET', pathIncludes: '/cycles/search', status: 200, body: '[{"id":"1","name":"Nigh', headers: JSON_HDR }],
      cucumberstudio: [
        {
          method: 'GET',
          pathIncludes: '/test_runs?filter',
          status: 200,
          body: '{"data":[{"id":"1","type":"test-runs","attri',
          headers: JSONAPI_HDR,
        },
      ],
    },
    cases: [
      { id: 'z-truncated-json', kind: 'response', title: 'Zephyr: 200 with truncated JSON', line: /Zephyr.*not valid JSON/ },
      {
        id: 'cs-truncated-json',
        kind: 'response',
        title: 'CucumberStudio: 200 with truncated JSON',
        line: /CucumberStudio.*not valid JSON/,
      },
    ],
  },
  {
    label: '401 qsh / 403',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [
        {
          method: 'GET',
          pathIncludes: '/cycles/search',
          status: 401,
          body: "Expecting claim 'qsh' to have value 'c3b9ee2a1f5e6d3b0f1c2b7d5e2a9c4f1b8e6d3a0c7b4e1f8d5a2c9b6e3f0a7d' but instead it has the value '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0'",
          headers: { 'content-type': 'text/plain' },
        },
      ],
      cucumberstudio: [
        {
          method: 'POST',
          pathEquals: `${CS}/test_runs`,
          status: 403,
          body: '{"errors":[{"status":"403","title":"Forbidden","detail":"You are not allowed to create test runs in this project"}]}',
          headers: JSONAPI_HDR,
        },
      ],
    },
    cases: [
      {
        id: 'z-401-qsh',
        kind: 'response',
        title: 'Zephyr: 401 with the qsh message',
        line: /Zephyr.*qsh mismatch/,
        names: ['ZEPHYR_BASE_URL'],
      },
      { id: 'cs-403', kind: 'response', title: 'CucumberStudio: 403 on creating the run', line: /CucumberStudio.*403.*not allowed/ },
    ],
  },
  {
    label: '403 / 404 cycle',
    env: (sb) => ({ ...sb.env(), ZEPHYR_CYCLE_ID: '0001-abcdef' }),
    overrides: {
      zephyr: [
        {
          method: 'GET',
          pathIncludes: '/cycle/0001-abcdef',
          status: 404,
          body: '{"errorType":"ERROR","clientMessage":"Cycle does not exist","errorCode":152}',
          headers: JSON_HDR,
        },
      ],
      cucumberstudio: [
        {
          method: 'GET',
          pathIncludes: '/test_snapshots',
          status: 403,
          body: '{"errors":[{"status":"403","title":"Forbidden"}]}',
          headers: JSONAPI_HDR,
        },
      ],
    },
    cases: [
      {
        id: 'z-404-cycle',
        kind: 'response',
        title: 'Zephyr: 404 on the configured cycle',
        line: /Zephyr.*404.*Cycle does not exist/,
        names: ['ZEPHYR_CYCLE_ID'],
      },
      {
        id: 'cs-403-read',
        kind: 'response',
        title: "CucumberStudio: 403 on reading the run's tests",
        line: /CucumberStudio.*403.*Forbidden/,
      },
    ],
  },
  {
    label: '403 zephyr / 500 non-JSON',
    env: (sb) => sb.env(),
    overrides: {
      zephyr: [
        {
          method: 'POST',
          pathEquals: `${Z}/cycle`,
          status: 403,
          body: '{"errorType":"ERROR","clientMessage":"You do not have the permission to make this request.","errorCode":403}',
          headers: JSON_HDR,
        },
      ],
      cucumberstudio: [
        {
          method: 'POST',
          pathIncludes: '/test_results',
          status: 500,
          body: 'Internal Server Error',
          headers: { 'content-type': 'text/plain' },
        },
      ],
    },
    cases: [
      { id: 'z-403', kind: 'response', title: 'Zephyr: 403 on creating the cycle', line: /Zephyr refused POST .*403.*permission/ },
      {
        id: 'cs-500-text',
        kind: 'response',
        title: 'CucumberStudio: 500 plain text on posting results (persistent)',
        line: /CucumberStudio.*HTTP 500.*Internal Server Error/,
      },
    ],
  },
  {
    label: '500 non-JSON / 200 HTML',
    env: (sb) => sb.env(),
    // Bulk status is sent for a result that is not UNEXECUTED, the status tests added to a cycle have.
    passing: true,
    overrides: {
      zephyr: [
        {
          method: 'POST',
          pathEquals: `${Z}/executions`,
          status: 500,
          body: 'Internal Server Error',
          headers: { 'content-type': 'text/plain' },
        },
      ],
      cucumberstudio: [{ method: 'GET', pathEquals: CS, status: 200, body: HTML_LOGIN, headers: { 'content-type': 'text/html' } }],
    },
    cases: [
      {
        id: 'z-500-text',
        kind: 'response',
        title: 'Zephyr: 500 plain text on bulk status (persistent)',
        line: /Zephyr.*HTTP 500.*Internal Server Error/,
      },
      { id: 'cs-200-html', kind: 'response', title: 'CucumberStudio: 200 with an HTML login page', line: /CucumberStudio.*HTML page/ },
    ],
  },
];
