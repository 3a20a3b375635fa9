import { BadResponseError, withHint } from '../../http/errors';
import { isFormData, type HttpRequest, type HttpSend } from '../../http/client';
import { JsonExchange } from '../../http/exchange';
import type { RequestLane } from '../../kit/lane';
import { PROJECT_HINT } from './config';
import { signRequest, type ZephyrCredentials } from './jwt';
import { zephyrMessages } from './errors';
import { normalizeJobProgress, parseJobToken, type JobProgress } from './job-answers';
import { PAGE_SIZE, parseExecutionPage, type ExecutionPage, type RawExecutionPage, type ZephyrExecution } from './executions';

export type { ZephyrExecution } from './executions';
export type { JobProgress } from './job-answers';

export interface ZephyrStatus {
  id: number;
  name: string;
}

export interface ZephyrCycle {
  id: string;
  name: string;
  projectId?: number;
  versionId?: number;
  status?: string;
  totalExecutions?: number;
  totalExecuted?: number;
  /** The CI build and the projects it shows (free text; absent where the service gives none). */
  build?: string;
  environment?: string;
  executionSummaries?: Array<{ executionStatusId?: number; executionStatusName?: string; count?: number }>;
}

type Query = Record<string, string | number | undefined>;

const API = '/public/rest/api/1.0';
/** Forwarded along the service's redirects to its own hosts only. */
const CREDENTIAL_HEADERS = ['Authorization', 'zapiAccessKey'] as const;
/** ZAPI cloud's host. */
const HOMES = ['prod-api.zephyr4jiracloud.com'] as const;

/**
 * ZAPI Cloud endpoints. Every call goes through the lane (pacing, 429 pauses) and is signed afresh
 * per attempt: a token is bound to one method+path+query and expires.
 */
export class ZephyrClient {
  constructor(
    private readonly creds: ZephyrCredentials,
    private readonly lane: RequestLane,
    private readonly send: HttpSend,
    private readonly secrets: readonly string[],
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.http = new JsonExchange({ service: 'Zephyr', send, messages: zephyrMessages(creds.baseUrl), secrets, expected: 'JSON' });
  }

  private readonly http: JsonExchange;

  /** One exchange (no retry). Returns the body text of a 2xx answer; throws typed errors otherwise. */
  async exchange(label: string, method: string, path: string, query: Query = {}, body?: unknown): Promise<string> {
    const { url, relative } = this.address(path, query);
    return this.lane.send(label, async () => (await this.http.text(await this.signed(method, url, body), relative)).text);
  }

  /** One exchange, parsed. Every attempt is signed afresh (a token is bound to one request and expires). */
  private exchangeJson<T>(label: string, method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const { url, relative } = this.address(path, query);
    return this.lane.send(label, async () => this.http.json<T>(await this.signed(method, url, body), relative));
  }

  /** One request with the lane's retry policy (reads and absolute writes), parsed. */
  json<T>(label: string, method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    return this.lane.retry(label, () => this.exchangeJson<T>(label, method, path, query, body));
  }

  private address(path: string, query: Query): { url: string; relative: string } {
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    const relative = `${API}${path}${qs ? `?${qs}` : ''}`;
    return { url: `${this.creds.baseUrl}${relative}`, relative };
  }

  private async signed(method: string, url: string, body: unknown): Promise<HttpRequest> {
    const token = await signRequest(this.creds, method, url, this.nowSeconds());
    const headers: Record<string, string> = {
      Authorization: `JWT ${token}`,
      zapiAccessKey: this.creds.accessKey,
      Accept: 'application/json',
    };
    // A multipart body goes as it is: the transport writes its boundary into the Content-Type.
    const multipart = isFormData(body);
    if (body !== undefined && !multipart) headers['Content-Type'] = 'application/json';
    const payload = body === undefined ? undefined : multipart ? body : JSON.stringify(body);
    return { method, url, headers, body: payload, credentialHeaders: CREDENTIAL_HEADERS, homes: HOMES };
  }

  /** Async endpoints answer with a job token: raw text, a JSON string, or `{"jobProgressToken": …}`. */
  async job(label: string, path: string, body: unknown): Promise<string> {
    return this.lane.retry(label, async () => {
      const token = parseJobToken(await this.exchange(label, 'POST', path, {}, body));
      if (!token) throw new BadResponseError('Zephyr', 200, `Zephyr answered POST ${path} without a job token.`);
      return token;
    });
  }

  async statuses(): Promise<ZephyrStatus[]> {
    const list = expectArray(
      await this.json<Array<{ id: unknown; name: unknown }>>('execution/statuses', 'GET', '/execution/statuses'),
      'GET /execution/statuses',
    );
    return list.map((s) => ({ ...s, id: Number(s.id), name: String(s.name) }));
  }

  /** Every cycle of the version, ids as strings; includes the built-in "Ad hoc" cycle (id "-1", see isAdHocCycle). */
  async searchCycles(projectId: number, versionId: number): Promise<ZephyrCycle[]> {
    return expectArray(
      await this.json<unknown[]>('cycles/search', 'GET', '/cycles/search', { projectId, versionId }),
      'GET /cycles/search',
    ).map((c) => normalizeCycle(c, 'GET /cycles/search'));
  }

  /** The version's cycles of this name, in creation order (the same first one for every shard); never "Ad hoc". */
  async cyclesNamed(name: string, projectId: number, versionId: number): Promise<ZephyrCycle[]> {
    const cycles = await withHint(this.searchCycles(projectId, versionId), PROJECT_HINT(projectId, versionId));
    return cycles.filter((c) => c.name === name && !isAdHocCycle(c));
  }

  async getCycle(cycleId: string, projectId: number, versionId: number, summaries = false): Promise<ZephyrCycle> {
    return normalizeCycle(
      await this.json('cycle/get', 'GET', `/cycle/${encodeURIComponent(cycleId)}`, {
        projectId,
        versionId,
        expand: summaries ? 'executionSummaries' : undefined,
      }),
      'GET /cycle',
    );
  }

  /** One attempt of a create (no retry): callers re-check state before repeating it. */
  async createCycleOnce(
    name: string,
    projectId: number,
    versionId: number,
    about: { description: string; build?: string; environment?: string },
  ): Promise<ZephyrCycle> {
    return normalizeCycle(
      await this.exchangeJson('cycle/create', 'POST', '/cycle', {}, { name, projectId, versionId, ...about }),
      'POST /cycle',
    );
  }

  /** Sets the cycle's build and environment (what a process of a new CI build, or of another project, changes). */
  updateCycle(cycle: { id: string; name: string }, projectId: number, versionId: number, about: { build: string; environment: string }) {
    return this.json(
      'cycle/update',
      'PUT',
      `/cycle/${encodeURIComponent(cycle.id)}`,
      {},
      { id: cycle.id, name: cycle.name, projectId, versionId, ...about },
    );
  }

  deleteCycle(cycleId: string, projectId: number, versionId: number): Promise<unknown> {
    return this.json('cycle/delete', 'DELETE', `/cycle/${encodeURIComponent(cycleId)}`, { projectId, versionId });
  }

  /** Adds tests by Jira key (≤ 100 per call); existing ones are skipped by the service. */
  addTests(cycleId: string, keys: readonly string[], projectId: number, versionId: number): Promise<string> {
    return this.job('executions/add', `/executions/add/cycle/${encodeURIComponent(cycleId)}`, {
      method: 1,
      issues: keys,
      projectId,
      versionId,
    });
  }

  /**
   * Sets one status on ≤ 1000 executions (absolute, so repeating it is harmless); with `stepStatus`,
   * every step result of those executions gets that status in the same call.
   */
  bulkStatus(executionIds: readonly string[], statusId: number, stepStatus?: number): Promise<string> {
    return this.job('executions/bulk-status', '/executions', {
      executions: executionIds,
      status: statusId,
      clearDefectMappingFlag: false,
      testStepStatusChangeFlag: stepStatus !== undefined,
      ...(stepStatus !== undefined ? { stepStatus } : {}),
    });
  }

  /** The job's state, normalised: `progress` a number (also from "1.0"), `errorMessage` a non-empty string or null. */
  async jobProgress(token: string): Promise<JobProgress> {
    return normalizeJobProgress(await this.json<unknown>('jobprogress', 'GET', `/jobprogress/${encodeURIComponent(token)}`));
  }

  /** One page (≤ 50) of the cycle's executions. */
  async executionsPage(cycleId: string, projectId: number, versionId: number, offset: number): Promise<ExecutionPage> {
    const path = `/executions/search/cycle/${encodeURIComponent(cycleId)}`;
    const page = await this.json<RawExecutionPage>('executions/search', 'GET', path, { projectId, versionId, offset, size: PAGE_SIZE });
    if (!Array.isArray(page.searchObjectList)) expectArray(page.searchObjectList, 'GET /executions/search/cycle (searchObjectList)');
    return parseExecutionPage(page);
  }

  /** One page (≤ 50) of a ZQL execution search; paging goes in the body. */
  async zqlPage(zqlQuery: string, offset: number): Promise<ExecutionPage> {
    const body = { zqlQuery, offset, maxRecords: PAGE_SIZE };
    const page = await this.json<RawExecutionPage>('zql/search', 'POST', '/zql/search', { isAdvanced: 'true' }, body);
    if (!Array.isArray(page.searchObjectList)) expectArray(page.searchObjectList, 'POST /zql/search (searchObjectList)');
    return parseExecutionPage(page);
  }

  /** Sets status and comment of one execution; ZAPI wants issueId and projectId repeated. */
  updateExecution(
    e: ZephyrExecution,
    body: { statusId: number; comment: string; cycleId: string; projectId: number; versionId: number },
  ): Promise<unknown> {
    return this.json(
      'execution/update',
      'PUT',
      `/execution/${encodeURIComponent(e.id)}`,
      {},
      {
        id: e.id,
        issueId: e.issueId,
        projectId: body.projectId,
        cycleId: body.cycleId,
        versionId: body.versionId,
        status: { id: body.statusId },
        comment: body.comment,
      },
    );
  }
}

/** The built-in "Ad hoc" cycle: listed by cycles/search, never a cycle to reuse by name. */
export const isAdHocCycle = (c: { id: string | number }): boolean => String(c.id).trim() === '-1';

const num = (v: unknown): number | undefined =>
  v === undefined || v === null || v === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : undefined;

/** Ids and counts arrive as numbers or numeric strings: cycles leave here with a string id and numeric counts. */
function normalizeCycle(value: unknown, what: string): ZephyrCycle {
  const c = value as Record<string, unknown> | null;
  if (!c || typeof c !== 'object' || Array.isArray(c) || c.id === undefined || c.id === null) {
    throw new BadResponseError(
      'Zephyr',
      200,
      `Zephyr answered ${what} with something that is not a cycle (no "id"); is ZEPHYR_BASE_URL (zephyr.baseUrl) the ZAPI service root?`,
    );
  }
  const summaries = Array.isArray(c.executionSummaries) ? (c.executionSummaries as Array<Record<string, unknown>>) : undefined;
  return {
    ...(c as object),
    id: String(c.id).trim(),
    name: typeof c.name === 'string' ? c.name : String(c.name ?? ''),
    projectId: num(c.projectId),
    versionId: num(c.versionId),
    totalExecutions: num(c.totalExecutions),
    totalExecuted: num(c.totalExecuted),
    executionSummaries: summaries
      ? summaries.map((s) => ({ ...s, executionStatusId: num(s.executionStatusId), count: num(s.count) }))
      : c.executionSummaries,
  } as ZephyrCycle;
}

/** Unexpected shapes are reported as such (not as a TypeError deep inside the publisher). */
function expectArray<T>(value: T, what: string): T {
  if (!Array.isArray(value)) {
    throw new BadResponseError(
      'Zephyr',
      200,
      `Zephyr answered ${what} with ${value === null ? 'null' : typeof value} where a list was expected; is ZEPHYR_BASE_URL (zephyr.baseUrl) the ZAPI service root?`,
    );
  }
  return value;
}
