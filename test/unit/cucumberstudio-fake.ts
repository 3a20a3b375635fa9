/**
 * A scriptable CucumberStudio stand-in at the HttpSend level (no network), for the target's unit tests:
 * the real client, lane and target run against it. `listScript` answers the test list call by call
 * (423, a short list, a broken body) before the full list is served.
 */
import type { HttpRequest, HttpResponse, HttpSend } from '../../src/http/client';
import { cucumberstudio } from '../../src/targets/cucumberstudio/definition';
import type { CucumberStudioConfig } from '../../src/targets/cucumberstudio/config';
import type { Target } from '../../src/kit/target';
import type { PlanItem } from '../../src/shared/model';

export interface FakeTest {
  id: number;
  scenarioId: number;
  results: Array<{ status: string; description: string; author: string; build?: string }>;
}
export interface FakeRun {
  id: number;
  name: string;
  description: string;
  scenarioIds: number[];
  tests: FakeTest[];
  /** The builds of its one environment (`Default`, id 1); `name` as the create sent it (names honoured). */
  builds?: Array<{ id: string; name: string; closed?: boolean }>;
}
type ListAnswer = (tests: FakeTest[]) => { status: number; text: string } | FakeTest[];

export interface FakeOptions {
  /** The list honours `include=scenario` (linkage in data[].relationships.scenario.data). */
  linkage?: boolean;
  /** 422 when scenario_ids names an unknown scenario (like the sandbox); else unknown ids are dropped silently. */
  strict?: boolean;
  /** Scenario ids that do not exist (every other id does). */
  absent?: number[];
  /** Scenario id -> name (default `Scenario <id>`). */
  names?: Record<number, string>;
  /** Scenario id -> number of tests (datasets); default 1. */
  datasets?: Record<number, number>;
  /** A build create ignores the name sent (the build is called `Build N`), as the documented route may. */
  ignoreBuildName?: boolean;
}

export class FakeCs {
  readonly runs = new Map<number, FakeRun>();
  readonly log: string[] = [];
  listScript: ListAnswer[] = [];
  /** Runs before a create is applied (e.g. a parallel shard creating the same run first). */
  beforeCreate?: () => void;
  /** Answers a result post in the service's stead (e.g. a refusal) when it returns an answer. */
  refusePost?: (testId: number) => { status: number; text: string } | undefined;
  /** Build creates still to answer 500 after being applied. */
  buildCreatesFailingAfterApplying = 0;
  private nextRun = 100;
  private nextTest = 1000;

  constructor(readonly o: FakeOptions = {}) {}

  name(id: number): string {
    return this.o.names?.[id] ?? `Scenario ${id}`;
  }

  exists(id: number): boolean {
    return !(this.o.absent ?? []).includes(id);
  }

  /** A run made outside the reporter (another shard, a person). */
  addRun(name: string, scenarioIds: number[]): FakeRun {
    const run: FakeRun = { id: this.nextRun++, name, description: '', scenarioIds: [], tests: [] };
    this.runs.set(run.id, run);
    this.addScenarios(run, scenarioIds);
    return run;
  }

  count(prefix: string): number {
    return this.log.filter((l) => l.startsWith(prefix)).length;
  }

  readonly send: HttpSend = async (_service, req) => {
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/api\/projects\/1/, '');
    this.log.push(`${req.method} ${path}${url.search}`);
    return this.route(req, path, url.searchParams);
  };

  private addScenarios(run: FakeRun, ids: number[]): void {
    for (const sid of ids) {
      if (!this.exists(sid) || run.scenarioIds.includes(sid)) continue;
      run.scenarioIds.push(sid);
      for (let i = 0; i < (this.o.datasets?.[sid] ?? 1); i++) run.tests.push({ id: this.nextTest++, scenarioId: sid, results: [] });
    }
  }

  private refuseUnknown(ids: unknown): HttpResponse | undefined {
    const unknown = (ids as number[]).filter((id) => !this.exists(id));
    if (this.o.strict !== false && unknown.length)
      return answer(422, { errors: [{ status: '422', detail: `Unknown scenario ids in scenario_ids: ${unknown.join(', ')}` }] });
    return undefined;
  }

  private testResource(t: FakeTest, linkage: boolean) {
    return {
      type: 'test-snapshots',
      id: String(t.id),
      attributes: { name: this.name(t.scenarioId), 'definition-json': { scenario_name: this.name(t.scenarioId) } },
      relationships: { scenario: linkage ? { data: { type: 'scenarios', id: String(t.scenarioId) } } : {}, 'last-result': {} },
    };
  }

  private route(req: HttpRequest, path: string, q: URLSearchParams): HttpResponse {
    const body = req.body ? (JSON.parse(req.body as string) as { data: { attributes: Record<string, unknown> } }) : undefined;
    let m: RegExpMatchArray | null;
    if (req.method === 'GET' && path === '') return answer(200, { data: { type: 'projects', id: '1', attributes: { name: 'P' } } });
    if (req.method === 'GET' && path === '/scenarios') {
      const ids = [...new Set([...Array.from({ length: 50 }, (_, i) => i + 1), ...Object.keys(this.o.names ?? {}).map(Number)])].filter(
        (id) => this.exists(id),
      );
      return answer(200, { data: ids.map((id) => ({ type: 'scenarios', id: String(id), attributes: { name: this.name(id) } })) });
    }
    if (req.method === 'GET' && (m = path.match(/^\/scenarios\/(\d+)$/))) {
      return this.exists(Number(m[1]))
        ? answer(200, { data: { type: 'scenarios', id: m[1], attributes: { name: this.name(Number(m[1])) } } })
        : answer(404, { errors: [{ detail: 'Scenario not found' }] });
    }
    // The list's order is undefined (spec §1.5): newest first here, so that callers must sort.
    if (req.method === 'GET' && path === '/test_runs')
      return answer(200, { data: [...this.runs.values()].reverse().map((r) => runResource(r)) });
    if (req.method === 'POST' && path === '/test_runs') {
      const a = body!.data.attributes;
      this.beforeCreate?.();
      const refused = this.refuseUnknown(a.scenario_ids);
      if (refused) return refused;
      const run: FakeRun = {
        id: this.nextRun++,
        name: String(a.name),
        description: String(a.description ?? ''),
        scenarioIds: [],
        tests: [],
      };
      this.runs.set(run.id, run);
      this.addScenarios(run, a.scenario_ids as number[]);
      return answer(201, { data: runResource(run) });
    }
    if ((m = path.match(/^\/test_runs\/(\d+)(.*)$/))) {
      const run = this.runs.get(Number(m[1]));
      if (!run) return answer(404, { errors: [{ detail: 'Test run not found' }] });
      const rest = m[2];
      const built = this.buildRoute(req, run, rest, body);
      if (built) return built;
      if (req.method === 'GET' && rest === '') return answer(200, { data: runResource(run) });
      if (req.method === 'PATCH' && rest === '') {
        const a = body!.data.attributes;
        if (a.scenario_ids !== undefined) {
          const refused = this.refuseUnknown(a.scenario_ids);
          if (refused) return refused;
          this.addScenarios(run, a.scenario_ids as number[]);
        }
        if (typeof a.description === 'string') run.description = a.description;
        if (typeof a.name === 'string') run.name = a.name;
        return answer(200, { data: runResource(run) });
      }
      if (req.method === 'GET' && rest === '/test_snapshots') {
        const scripted = this.listScript.shift()?.(run.tests) ?? run.tests;
        if (!Array.isArray(scripted)) return { ...scripted, headers: {}, durationMs: 1 };
        const linkage = this.o.linkage === true && q.get('include') === 'scenario';
        if (q.get('show_step_statuses') !== 'true') return answer(200, { data: scripted.map((t) => this.testResource(t, linkage)) });
        // With each test's last result: `last-result` linkage and the results in `included`.
        const lastId = (t: FakeTest) => (t.results.length ? `${t.id}.${t.results.length}` : undefined);
        const data = scripted.map((t) => {
          const r = this.testResource(t, linkage);
          const id = lastId(t);
          return { ...r, relationships: { ...r.relationships, 'last-result': { data: id ? { type: 'test-results', id } : null } } };
        });
        const included = scripted
          .filter((t) => t.results.length)
          .map((t) => ({
            type: 'test-results',
            id: lastId(t),
            attributes: { status: t.results.at(-1)!.status, 'test-snapshot-id': t.id },
          }));
        return answer(200, { data, included });
      }
      const t = (m = rest.match(/^\/test_snapshots\/(\d+)(.*)$/)) ? run.tests.find((x) => x.id === Number(m![1])) : undefined;
      if (!t) return answer(404, { errors: [{ detail: 'not found' }] });
      if (req.method === 'GET' && m![2] === '') {
        const last = t.results.at(-1);
        const included =
          q.get('include') === 'last-result' && last
            ? [
                {
                  type: 'test-results',
                  id: '1',
                  attributes: { status: last.status, description: last.description, 'status-author': last.author },
                  relationships: { build: { data: last.build ? { type: 'builds', id: last.build } : null } },
                },
              ]
            : [];
        return answer(200, { data: this.testResource(t, q.get('include') === 'scenario'), included });
      }
      if (req.method === 'POST' && m![2] === '/test_results') {
        const refused = this.refusePost?.(t.id);
        if (refused) return { ...refused, headers: {}, durationMs: 1 };
        const a = body!.data.attributes;
        const build = (body as { data: { relationships?: { build?: { data?: { id?: string } } } } }).data.relationships?.build?.data?.id;
        t.results.push({ status: String(a.status), description: String(a.description), author: String(a['status-author']), build });
        return answer(201, { data: { type: 'test-results', id: String(t.results.length), attributes: a } });
      }
    }
    return answer(404, { errors: [{ detail: `no route ${req.method} ${path}` }] });
  }

  /** The environment routes of the run's one environment (`Default`, id 1) and the build read by id. */
  private buildRoute(req: HttpRequest, run: FakeRun, rest: string, body?: { data: { attributes: Record<string, unknown> } }) {
    const builds = (run.builds ??= []);
    const resource = (b: { id: string; name: string; closed?: boolean }) => ({
      type: 'builds',
      id: b.id,
      attributes: { name: b.name, 'is-running': !b.closed },
    });
    if (req.method === 'GET' && rest === '/execution_environments')
      return answer(200, { data: [{ type: 'execution-environments', id: '1', attributes: { name: 'Default' } }] });
    if (req.method === 'GET' && rest === '/execution_environments/1/builds') return answer(200, { data: builds.map(resource) });
    if (req.method === 'POST' && rest === '/execution_environments/1/builds') {
      const name = this.o.ignoreBuildName ? `Build ${builds.length + 1}` : String(body?.data.attributes.name);
      builds.push({ id: String(500 + builds.length), name });
      if (this.buildCreatesFailingAfterApplying-- > 0) return answer(500, { errors: [{ detail: 'Internal Server Error' }] });
      return answer(201, { data: resource(builds.at(-1)!) });
    }
    const renamed = rest.match(/^\/builds\/(\d+)$/);
    if (req.method === 'PATCH' && renamed) {
      const build = builds.find((b) => b.id === renamed[1]);
      if (!build) return answer(404, { errors: [{ detail: 'Build not found' }] });
      build.name = String(body?.data.attributes.name);
      return answer(200, { data: resource(build) });
    }
    const m = rest.match(/^\/builds\/(\d+)$/);
    if (req.method === 'GET' && m) {
      const included = run.tests.flatMap((t) =>
        t.results.flatMap((r, i) =>
          r.build === m[1]
            ? [
                {
                  type: 'test-results',
                  id: `${t.id}.${i + 1}`,
                  attributes: { status: r.status, description: r.description, 'test-snapshot-id': t.id },
                },
              ]
            : [],
        ),
      );
      return answer(200, { data: { type: 'builds', id: m[1] }, included });
    }
    return undefined;
  }
}

function runResource(r: FakeRun) {
  const statuses: Record<string, number> = { passed: 0, failed: 0, skipped: 0, undefined: 0 };
  for (const t of r.tests) {
    const s = t.results.at(-1)?.status ?? 'undefined';
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  return { type: 'test-runs', id: String(r.id), attributes: { name: r.name, description: r.description, statuses, archived: false } };
}

function answer(status: number, doc: unknown): HttpResponse {
  return { status, headers: {}, text: JSON.stringify(doc), durationMs: 1 };
}

/** A virtual clock: sleeping advances it. */
export function clock() {
  let now = 1_000_000;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

/** The real target (definition, client, lane) on the fake, with a virtual clock. */
export function makeTarget(fake: FakeCs, cfg: Partial<CucumberStudioConfig> = {}, replay = false): Target {
  const c = clock();
  const config: CucumberStudioConfig = {
    baseUrl: 'https://cs.test',
    uid: 'u',
    accessToken: 'token-secret',
    client: 'c',
    projectId: 1,
    testRunName: 'Nightly',
    statusMap: {},
    rateLimit: null,
    snapshotTimeoutMs: 60_000,
    ...cfg,
  };
  return cucumberstudio.create(config, {
    send: fake.send,
    secrets: ['token-secret'],
    replay,
    lane: { clock: c, random: () => 0 },
    tuning: { cucumberstudio: { wait: { clock: c } } },
  });
}

export const item = (key: number, status = 'passed', comment = ''): PlanItem => ({
  key: String(key),
  outcome: status === 'failed' ? 'failed' : 'passed',
  status,
  comment,
  tests: [`t${key}`],
});
