import { Blob } from 'node:buffer';
import { BadResponseError } from '../../http/errors';
import type { UploadFile } from '../../kit/target';
import { isFormData, type HttpSend } from '../../http/client';
import { JsonExchange } from '../../http/exchange';
import type { RequestLane } from '../../kit/lane';
import type { CucumberStudioConfig } from './config';
import { CS_ACCEPT, cucumberStudioMessages } from './errors';

export type CsCredentials = Pick<CucumberStudioConfig, 'baseUrl' | 'uid' | 'accessToken' | 'client' | 'projectId'>;

export interface JsonApiResource {
  id: string;
  type?: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: { id: string; type?: string } | Array<{ id: string }> | null }>;
}

export interface JsonApiDocument {
  data?: JsonApiResource | JsonApiResource[] | null;
  included?: JsonApiResource[];
}

/** Forwarded along the service's redirects to its own hosts only (the old site moves to the new one). */
const CREDENTIAL_HEADERS = ['uid', 'access-token', 'client'] as const;
/** The vendor's current and former sites (the former redirects to the current one). */
const HOMES = ['studio.cucumberstudio.com', 'studio.cucumber.io'] as const;

/** JSON:API client for CucumberStudio v1. One exchange per call, through the lane. */
export class CucumberStudioClient {
  constructor(
    private readonly creds: CsCredentials,
    private readonly lane: RequestLane,
    private readonly send: HttpSend,
    private readonly secrets: readonly string[],
  ) {
    this.http = new JsonExchange({
      service: 'CucumberStudio',
      send,
      messages: cucumberStudioMessages(creds),
      secrets,
      expected: 'a JSON:API document',
    });
  }

  private readonly http: JsonExchange;

  /** Path relative to `/api/projects/{projectId}` ('' = the project itself). */
  async exchange(label: string, method: string, path: string, body?: unknown): Promise<JsonApiDocument> {
    const relative = `/api/projects/${this.creds.projectId}${path}`;
    const { baseUrl, uid, accessToken, client } = this.creds;
    const headers: Record<string, string> = { Accept: CS_ACCEPT, uid, 'access-token': accessToken, client };
    // A multipart body goes as it is: the transport writes its boundary into the Content-Type.
    const multipart = isFormData(body);
    if (body !== undefined && !multipart) headers['Content-Type'] = 'application/json';
    const payload = body === undefined || multipart ? body : JSON.stringify(body);
    const req = { method, url: `${baseUrl}${relative}`, headers, body: payload, credentialHeaders: CREDENTIAL_HEADERS, homes: HOMES };
    return this.lane.send(label, () => this.http.json<JsonApiDocument>({ ...req, headers: { ...headers } }, relative));
  }

  /** With the lane's retry policy (for reads and idempotent writes). */
  call(label: string, method: string, path: string, body?: unknown): Promise<JsonApiDocument> {
    return this.lane.retry(label, () => this.exchange(label, method, path, body));
  }

  getProject(): Promise<JsonApiDocument> {
    return this.call('project', 'GET', '');
  }

  async listScenarios(): Promise<JsonApiDocument> {
    return expectList(await this.call('scenarios', 'GET', '/scenarios'), `GET /api/projects/${this.creds.projectId}/scenarios`);
  }

  async listActiveRuns(): Promise<JsonApiDocument> {
    return expectList(
      await this.call('test_runs/list', 'GET', '/test_runs?filter%5Bstatus%5D=active'),
      `GET /api/projects/${this.creds.projectId}/test_runs`,
    );
  }

  getRun(runId: number): Promise<JsonApiDocument> {
    return this.call('test_runs/get', 'GET', `/test_runs/${runId}`);
  }

  /**
   * One attempt (no retry): the caller re-checks by name before repeating a create. No id yet: the
   * documented empty run (`external` without `scenario_ids`). An empty `scenario_ids` is not documented,
   * and an absent one means every scenario of the project.
   */
  createRunOnce(name: string, scenarioIds: readonly number[], description: string): Promise<JsonApiDocument> {
    const what = scenarioIds.length ? { scenario_ids: scenarioIds } : { external: true };
    return this.exchange('test_runs/create', 'POST', '/test_runs', { data: { attributes: { name, description, ...what } } });
  }

  /**
   * One attempt (no retry): re-adding a scenario already in a run is not specified (the service may make
   * its tests again), so the caller looks at the run before repeating an add that may have been applied.
   */
  addScenariosOnce(runId: number, scenarioIds: readonly number[]): Promise<JsonApiDocument> {
    return this.exchange('test_runs/patch', 'PATCH', `/test_runs/${runId}`, {
      data: { type: 'test_runs', id: runId, attributes: { scenario_ids: scenarioIds } },
    });
  }

  getSnapshot(runId: number, snapshotId: string, include: 'scenario' | 'last-result'): Promise<JsonApiDocument> {
    return this.call(`test_snapshots/get`, 'GET', `/test_runs/${runId}/test_snapshots/${snapshotId}?include=${include}`);
  }

  /**
   * `stepStatuses`: one per step of the test, in order (the service reads a shorter list as scenario-level).
   * `buildId`: the build the result goes into (#84 with `relationships.build`, the one result route that takes
   * step statuses); never left out by the publisher, since a result with no build shows in no build view.
   */
  postResultOnce(
    runId: number,
    snapshotId: string,
    result: { status: string; description: string; author: string; stepStatuses?: readonly string[]; buildId?: string },
  ): Promise<JsonApiDocument> {
    const { status, description, author, stepStatuses, buildId } = result;
    return this.exchange('test_results/create', 'POST', `/test_runs/${runId}/test_snapshots/${snapshotId}/test_results`, {
      data: {
        type: 'test-results',
        attributes: { status, 'status-author': author, description, ...(stepStatuses ? { 'step-statuses': stepStatuses } : {}) },
        ...(buildId !== undefined ? { relationships: { build: { data: { type: 'builds', id: buildId } } } } : {}),
      },
    });
  }

  /** #98 — the run's execution environments (`Default` always among them). */
  async listEnvironments(runId: number): Promise<JsonApiDocument> {
    return expectList(
      await this.call('environments/list', 'GET', `/test_runs/${runId}/execution_environments`),
      `GET /api/projects/${this.creds.projectId}/test_runs/${runId}/execution_environments`,
    );
  }

  /** #99, one attempt (no retry): the caller lists again after a refusal (a concurrent creator) or before repeating. */
  createEnvironmentOnce(runId: number, name: string): Promise<JsonApiDocument> {
    return this.exchange('environments/create', 'POST', `/test_runs/${runId}/execution_environments`, {
      data: { attributes: { name } },
    });
  }

  /** #102 — the environment's builds (the run-level #91 fails once a run has two environments). */
  async listBuilds(runId: number, environmentId: string): Promise<JsonApiDocument> {
    return expectList(
      await this.call('builds/list', 'GET', `/test_runs/${runId}/execution_environments/${environmentId}/builds`),
      `GET /api/projects/${this.creds.projectId}/test_runs/${runId}/execution_environments/${environmentId}/builds`,
    );
  }

  /** #103, one attempt (no retry): a create is not idempotent, the caller lists again before repeating one. */
  createBuildOnce(runId: number, environmentId: string, name: string): Promise<JsonApiDocument> {
    return this.exchange('builds/create', 'POST', `/test_runs/${runId}/execution_environments/${environmentId}/builds`, {
      data: { attributes: { name } },
    });
  }

  /** #95 — rename by id (works whatever the number of environments): idempotent. */
  renameBuild(runId: number, buildId: string, name: string): Promise<JsonApiDocument> {
    return this.call('builds/rename', 'PATCH', `/test_runs/${runId}/builds/${buildId}`, {
      data: { type: 'builds', id: buildId, attributes: { name } },
    });
  }

  /** #94 with `include=test-results` — the build and every result it holds, in one call. */
  getBuildResults(runId: number, buildId: string): Promise<JsonApiDocument> {
    return this.call('builds/get', 'GET', `/test_runs/${runId}/builds/${buildId}?include=test-results`);
  }

  /** Edits a result's status and description (#85; its step statuses cannot be changed): idempotent. */
  patchResult(
    runId: number,
    snapshotId: string,
    resultId: string,
    result: { status: string; description: string },
  ): Promise<JsonApiDocument> {
    return this.call('test_results/update', 'PATCH', `/test_runs/${runId}/test_snapshots/${snapshotId}/test_results/${resultId}`, {
      data: { type: 'test-results', id: resultId, attributes: { status: result.status, description: result.description } },
    });
  }

  private resultPath(runId: number, snapshotId: string, resultId: string): string {
    return `/test_runs/${runId}/test_snapshots/${snapshotId}/test_results/${resultId}/attachments`;
  }

  listResultAttachments(runId: number, snapshotId: string, resultId: string): Promise<JsonApiDocument> {
    return this.call('attachments/list', 'GET', this.resultPath(runId, snapshotId, resultId));
  }

  /** One attempt (no retry): the caller looks before repeating an upload. Multipart, the file in part `file`. */
  uploadAttachmentOnce(runId: number, snapshotId: string, resultId: string, file: UploadFile): Promise<JsonApiDocument> {
    const form = new FormData();
    form.append('file', new Blob([file.bytes], { type: file.contentType }), file.fileName);
    return this.exchange('attachments/create', 'POST', this.resultPath(runId, snapshotId, resultId), form);
  }

  /**
   * One attempt (no retry): the caller decides what "not ready yet" is. `include=scenario` asks for
   * `data[].relationships.scenario.data.id`, the one-call way from tests to scenarios (field evidence);
   * a service that ignores it answers the plain list, and the caller falls back to names.
   */
  async listTestsOnce(runId: number, withResults = false): Promise<JsonApiDocument> {
    // `show_step_statuses=true`: each test's last result too (the read-back's fresh look at the run).
    const query = withResults ? '?include=scenario&show_step_statuses=true' : '?include=scenario';
    return expectList(
      await this.exchange('test_snapshots/list', 'GET', `/test_runs/${runId}/test_snapshots${query}`),
      `GET /api/projects/${this.creds.projectId}/test_runs/${runId}/test_snapshots`,
    );
  }

  /** One scenario (404 when it does not exist): how mapped ids are checked, one call per id. */
  getScenario(scenarioId: number): Promise<JsonApiDocument> {
    return this.call('scenarios/get', 'GET', `/scenarios/${scenarioId}`);
  }

  /** The run's description, by the documented PATCH (renaming a run is not documented). */
  describeRun(runId: number, description: string): Promise<JsonApiDocument> {
    return this.call('test_runs/patch', 'PATCH', `/test_runs/${runId}`, {
      data: { type: 'test_runs', id: runId, attributes: { description } },
    });
  }
}

/** A list endpoint must answer `data: [...]`; anything else is reported, never guessed at. */
function expectList(doc: JsonApiDocument, what: string): JsonApiDocument {
  if (!Array.isArray(doc.data))
    throw new BadResponseError(
      'CucumberStudio',
      200,
      `CucumberStudio answered ${what} with "data" of an unexpected shape (expected a list, got ${doc.data === null ? 'null' : typeof doc.data}); is CUCUMBERSTUDIO_BASE_URL (cucumberstudio.baseUrl) the API's site root?`,
    );
  return doc;
}

export function asArray(data: JsonApiDocument['data']): JsonApiResource[] {
  return Array.isArray(data) ? data : data ? [data] : [];
}
