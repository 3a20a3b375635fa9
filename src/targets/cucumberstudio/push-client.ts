import { Blob } from 'node:buffer';
import { XMLParser } from 'fast-xml-parser';
import { BadResponseError, HttpError } from '../../http/errors';
import type { HttpSend } from '../../http/client';
import { JsonExchange, type MessageTable } from '../../http/exchange';
import type { RequestLane } from '../../kit/lane';
import { cucumberStudioMessages } from './errors';
import type { CucumberStudioConfig } from './config';

/** One test of the run as the publication route names it (spec §5.2). */
export interface PublishedTest {
  uid: string;
  scenarioName: string;
  /** The data-table row's name; absent for a scenario without datasets. */
  datasetName?: string;
}

/** What the push answered: the report names it imported (spec §5.3: one entry per imported test). */
export interface PushAnswer {
  imported: Array<{ name: string; status: string }>;
}

/** A wrong token answers 404 with an empty body on every token route (spec §5.1). */
const REFUSED =
  'CucumberStudio refused the project secret token (404 on its token route): check CUCUMBERSTUDIO_SECRET_TOKEN (cucumberstudio.secretToken), shown to project administrators under settings > Test code generation';

function pushMessages(c: Pick<CucumberStudioConfig, 'baseUrl' | 'projectId'>): MessageTable {
  const api = cucumberStudioMessages(c);
  return (f) => (f.status === 404 && f.text.trim() === '' ? REFUSED : api(f));
}

/**
 * The two token routes the bulk push needs, on the site root outside `/api` (spec §5): the run's tests with their
 * uids, and the push of a cucumber-json report. No credential header (the token is in the path); the token is in
 * every URL, so messages show the path with `:token` and the token is among the redacted secrets.
 * Every call goes through the lane like the JSON:API's: the service's 200 calls a minute count them all.
 */
export class PushClient {
  private readonly http: JsonExchange;

  constructor(
    private readonly cfg: Pick<CucumberStudioConfig, 'baseUrl' | 'projectId'> & { secretToken: string },
    private readonly lane: RequestLane,
    send: HttpSend,
    secrets: readonly string[],
  ) {
    this.http = new JsonExchange({ service: 'CucumberStudio', send, messages: pushMessages(cfg), secrets: [cfg.secretToken, ...secrets] });
  }

  private url(path: string): string {
    return `${this.cfg.baseUrl.replace(/\/$/, '')}/${path.replace('{token}', encodeURIComponent(this.cfg.secretToken))}`;
  }

  /** `GET publication/{token}/test_runs` (the `check` command's read-only look): the number of runs it lists. */
  async runCount(): Promise<number> {
    const path = 'publication/{token}/test_runs';
    const doc = await this.lane.retry('publication/runs', () =>
      this.lane.send('publication/runs', () =>
        this.http.json<{ test_runs?: unknown }>({ method: 'GET', url: this.url(path), headers: {} }, `/${path}`),
      ),
    );
    if (!Array.isArray(doc.test_runs))
      throw new BadResponseError('CucumberStudio', 200, `CucumberStudio answered GET /${path} without a "test_runs" list`);
    return doc.test_runs.length;
  }

  /** `GET publication/{token}/test_run/{runId}`: every test of the run generated so far, with its uid. */
  async runTests(runId: number): Promise<PublishedTest[]> {
    const path = `publication/{token}/test_run/${runId}`;
    const res = await this.lane.retry('publication/run', () =>
      this.lane.send('publication/run', () => this.http.text({ method: 'GET', url: this.url(path), headers: {} }, `/${path}`)),
    );
    return publishedTests(res.text);
  }

  /**
   * One attempt (no retry): a push is not idempotent, the caller reads the build before repeating one.
   * `POST import_test_results/{token}/cucumber-json?build_id=B&execution_environment=E`, the report in one file part.
   */
  async pushOnce(report: string, buildId: string, environment: string): Promise<PushAnswer> {
    const query = `build_id=${encodeURIComponent(buildId)}&execution_environment=${encodeURIComponent(environment)}`;
    const path = `import_test_results/{token}/cucumber-json?${query}`;
    const form = new FormData();
    form.append('file', new Blob([report], { type: 'application/json' }), 'playwright-results.json');
    const doc = await this.lane.send('import_test_results', () =>
      this.http.json<{ test_import?: unknown }>({ method: 'POST', url: this.url(path), headers: {}, body: form }, `/${path}`),
    );
    if (!Array.isArray(doc.test_import))
      throw new BadResponseError('CucumberStudio', 200, `CucumberStudio answered the push without a "test_import" list`);
    return {
      imported: doc.test_import.map((e: { name?: unknown; status?: unknown }) => ({
        name: String(e?.name ?? ''),
        status: String(e?.status ?? ''),
      })),
    };
  }
}

/** The token was refused (404, empty body): no retry helps, the per-result path does. */
export function isTokenRefused(error: unknown): boolean {
  return error instanceof HttpError && error.status === 404;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  // Lists stay lists even with one element.
  isArray: (name) => ['testRun', 'scenarioSnapshot', 'testSnapshot'].includes(name),
});

/** The run export's tests (spec §5.2 path `project > testRuns > testRun > scenarioSnapshots > … > testSnapshot`). */
export function publishedTests(xml: string): PublishedTest[] {
  let doc: any;
  try {
    doc = parser.parse(xml);
  } catch (error) {
    throw new BadResponseError(
      'CucumberStudio',
      200,
      `CucumberStudio answered the run export with unreadable XML: ${(error as Error).message}`,
    );
  }
  const runs: any[] = doc?.project?.testRuns?.testRun ?? [];
  const out: PublishedTest[] = [];
  for (const run of runs)
    for (const scenario of run?.scenarioSnapshots?.scenarioSnapshot ?? [])
      for (const test of scenario?.testSnapshots?.testSnapshot ?? []) {
        const uid = String(test?.uid ?? '').trim();
        if (!uid) continue;
        const scenarioName = String(test?.scenarioName ?? scenario?.name ?? '');
        const dataset = test?.datasetName;
        out.push({ uid, scenarioName, ...(dataset !== undefined && dataset !== '' ? { datasetName: String(dataset) } : {}) });
      }
  return out;
}
