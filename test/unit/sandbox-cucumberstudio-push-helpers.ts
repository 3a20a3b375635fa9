/** Shared steps of the token-route tests: the run's uids read from the publication XML, pushes as the CLI sends them. */
import { CUCUMBERSTUDIO_DEFAULTS } from '../../src/sandbox/cucumberstudio';
import type { Answer, CsHarness } from './sandbox-cucumberstudio-helpers';

export const TOKEN = CUCUMBERSTUDIO_DEFAULTS.secretToken;

/** One test of the publication XML. */
export interface PublishedTest {
  scenarioName: string;
  uid: string;
  datasetName: string | null;
  datasetUid: string | null;
  steps: number;
}

/** A token route with no header at all (the vendor's CLI sends only its User-Agent). */
export async function raw(h: CsHarness, method: string, path: string, body?: FormData): Promise<Answer> {
  const res = await fetch(h.sandbox.origin + path, { method, headers: { 'user-agent': 'Ruby/hiptest-publisher' }, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function testsOf(xml: string): PublishedTest[] {
  return [...xml.matchAll(/<testSnapshot>([\s\S]*?)<\/testSnapshot>/g)].map(([, inner]) => ({
    scenarioName: /<scenarioName>(.*?)<\/scenarioName>/.exec(inner)?.[1] ?? '',
    uid: /<uid>(.*?)<\/uid>/.exec(inner)?.[1] ?? '',
    datasetName: /<datasetName>(.*?)<\/datasetName>/.exec(inner)?.[1] ?? null,
    datasetUid: /<datasetUid>(.*?)<\/datasetUid>/.exec(inner)?.[1] ?? null,
    steps: [...inner.matchAll(/<step>/g)].length,
  }));
}

export async function published(h: CsHarness, runId: string): Promise<PublishedTest[]> {
  const answer = await raw(h, 'GET', `/publication/${TOKEN}/test_run/${runId}`);
  if (answer.status !== 200) throw new Error(`publication answered ${answer.status}`);
  return testsOf(answer.text);
}

/** A run of `scenarios`, generated; its id, its JSON:API test ids, and its published tests. */
export async function generatedRun(h: CsHarness, scenarios: number[]): Promise<{ id: string; tests: PublishedTest[] }> {
  const id = (await h.createRun({ name: 'Nightly', scenario_ids: scenarios })).json.data.id;
  h.clock.now += 1000;
  return { id, tests: await published(h, id) };
}

/** The run's `Default` environment and a build in it (through the JSON:API, as the product does). */
export async function defaultBuild(h: CsHarness, runId: string): Promise<{ environment: string; build: string }> {
  const tr = `/api/projects/1/test_runs/${runId}`;
  const environment = (await h.api('GET', `${tr}/execution_environments`)).json.data[0].id;
  const build = (await h.api('POST', `${tr}/execution_environments/${environment}/builds`, { data: { attributes: {} } })).json.data.id;
  return { environment, build };
}

export interface CucumberScenario {
  name: string;
  steps: string[];
  error?: string;
}

/** A cucumber-json report of one feature. */
export function cucumberJson(scenarios: CucumberScenario[], background: string[] = []): string {
  const step = (status: string, i: number, error?: string) => ({
    keyword: 'Given ',
    name: `step ${i}`,
    result: { status, duration: 1, ...(error && status === 'failed' ? { error_message: error } : {}) },
  });
  const elements = scenarios.flatMap((s) => [
    ...(background.length ? [{ type: 'background', name: '', steps: background.map((b, i) => step(b, i)) }] : []),
    { type: 'scenario', keyword: 'Scenario', name: s.name, steps: s.steps.map((st, i) => step(st, i, s.error)) },
  ]);
  return JSON.stringify([{ keyword: 'Feature', name: 'Shop', uri: 'shop.feature', elements }]);
}

/** Pushes files as the CLI does: one multipart part per file, named after it. */
export function push(h: CsHarness, format: string, files: Record<string, string>, query = '', token = TOKEN): Promise<Answer> {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) form.append(`file-${name.replace(/\W/g, '')}`, new Blob([content]), name);
  return raw(h, 'POST', `/import_test_results/${token}/${format}${query}`, form);
}
