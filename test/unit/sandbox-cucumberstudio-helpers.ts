/** Shared set-up of the CucumberStudio sandbox unit tests: a core with only this module and a controlled clock. */
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import {
  createCucumberStudioModule,
  CUCUMBERSTUDIO_DEFAULTS,
  type CucumberStudioModule,
  type CucumberStudioSandboxOptions,
} from '../../src/sandbox/cucumberstudio';

export const ACCEPT = 'application/vnd.api+json; version=1';
export const AUTH = {
  uid: CUCUMBERSTUDIO_DEFAULTS.uid,
  'access-token': CUCUMBERSTUDIO_DEFAULTS.accessToken,
  client: CUCUMBERSTUDIO_DEFAULTS.client,
};
export const HEADERS: Record<string, string> = { ...AUTH, accept: ACCEPT, 'content-type': 'application/json' };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CsHarness {
  sandbox: RunningSandbox;
  module: CucumberStudioModule;
  /** Tests advance `clock.now` instead of sleeping. */
  clock: { now: number };
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  createRun(attributes: Record<string, unknown>): Promise<Answer>;
  /** Tests of a run, waiting for nothing: one GET of the list. */
  tests(runId: string, query?: string): Promise<Answer>;
  state(): any;
  close(): Promise<void>;
}

export async function startCs(options: CucumberStudioSandboxOptions = {}): Promise<CsHarness> {
  const clock = { now: 0 };
  const module = createCucumberStudioModule({ scenarioCount: 20, generationDelayMs: 100, now: () => clock.now, ...options });
  const sandbox = await startSandboxCore([module], {});
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS): Promise<Answer> => {
    const res = await fetch(sandbox.origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  return {
    sandbox,
    module,
    clock,
    api,
    createRun: (attributes) => api('POST', '/api/projects/1/test_runs', { data: { attributes } }),
    tests: (runId, query = '') => api('GET', `/api/projects/1/test_runs/${runId}/test_snapshots${query}`),
    state: () => (sandbox.state() as any).cucumberstudio,
    close: () => sandbox.close(),
  };
}

/** Posts a result and returns the answer. */
export function postResult(h: CsHarness, runId: string, testId: string, attributes: Record<string, unknown>): Promise<Answer> {
  return h.api('POST', `/api/projects/1/test_runs/${runId}/test_snapshots/${testId}/test_results`, {
    data: { attributes: { status: 'passed', 'status-author': 'ci', description: '', ...attributes } },
  });
}
