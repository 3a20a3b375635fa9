/**
 * JSON:API document building for the CucumberStudio stand-in: resource objects (string ids, kebab-case
 * attributes, integer `*-id` attributes, every relationship emitted), error documents and response headers.
 */
import type { SandboxResponse } from '../types';
import {
  FIXTURE_TIME,
  type CucumberStudioStore,
  type Dataset,
  type Scenario,
  type TestResult,
  type TestRun,
  type TestSnapshot,
} from './store';

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

export type Resource = Record<string, unknown> & { type: string; id: string };

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  406: 'Not Acceptable',
  422: 'Unprocessable Entity',
  423: 'Locked',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `{"errors":[{"status":"<code>","title":"…","detail":"…"}]}` (the spec's suggested shape). */
export function errorResponse(status: number, detail: string, route: string): SandboxResponse {
  return { status, route, body: { errors: [{ status: String(status), title: TITLES[status] ?? 'Error', detail }] } };
}

export function ok(status: number, body: unknown, route: string): SandboxResponse {
  return { status, body, route };
}

function audit(created: number, updated: number, author: string): Record<string, unknown> {
  return { 'created-at': iso(created), 'updated-at': iso(updated), 'last-author': author };
}

export function projectResource(store: CucumberStudioStore, includeFolder: boolean): Resource {
  const { projectId, projectName, uid } = store.config;
  const folder: Record<string, unknown> = {
    links: { self: `/projects/${projectId}/relationships/scenarios-folder`, related: `/projects/${projectId}/scenarios-folder` },
  };
  if (includeFolder) folder.data = { type: 'folders', id: String(store.rootFolderId) };
  return {
    type: 'projects',
    id: String(projectId),
    attributes: { ...audit(FIXTURE_TIME, FIXTURE_TIME, uid), name: projectName, description: 'Checkout and catalogue', 'bdd-mode': true },
    links: { self: `/projects/${projectId}` },
    relationships: { 'scenarios-folder': folder },
  };
}

export function folderResource(store: CucumberStudioStore): Resource {
  const id = store.rootFolderId;
  return {
    type: 'folders',
    id: String(id),
    attributes: {
      ...audit(FIXTURE_TIME, FIXTURE_TIME, store.config.uid),
      name: store.config.projectName,
      description: '',
      'parent-id': null,
    },
    links: { self: `/folders/${id}` },
    relationships: { tags: {} },
  };
}

export function scenarioResource(store: CucumberStudioStore, scenario: Scenario): Resource {
  return {
    type: 'scenarios',
    id: String(scenario.id),
    attributes: {
      ...audit(FIXTURE_TIME, FIXTURE_TIME, store.config.uid),
      name: scenario.name,
      description: store.description(scenario),
      'folder-id': store.rootFolderId,
      definition: store.definition(scenario),
      errors: [],
    },
    links: { self: `/scenarios/${scenario.id}` },
    relationships: { folder: {}, tags: {}, actionwords: {}, 'test-snapshots': {} },
  };
}

export function datasetResource(dataset: Dataset): Resource {
  return {
    type: 'datasets',
    id: String(dataset.id),
    attributes: { name: dataset.name, data: { ...dataset.data } },
    links: { self: `/datasets/${dataset.id}` },
  };
}

export function runResource(store: CucumberStudioStore, run: TestRun, withSync = false): Resource {
  const attributes: Record<string, unknown> = {
    ...audit(run.createdAt, run.updatedAt, store.config.uid),
    name: run.name,
    description: run.description,
    statuses: store.statuses(run),
    archived: run.archived,
    external: run.external,
  };
  if (withSync) {
    attributes['synchronization-information'] = {
      synchronizable: true,
      synchronizing: false,
      details: { deleted_folders_snapshots: [], deleted_scenarios_snapshots: [], deleted_tests_snapshots: [] },
    };
  }
  return { type: 'test-runs', id: String(run.id), attributes, links: { self: `/test-runs/${run.id}` }, relationships: { tags: {} } };
}

export interface SnapshotIncludes {
  scenario?: boolean;
  dataset?: boolean;
  lastResult?: boolean;
}

/**
 * A test snapshot. Without includes its relationships carry no linkage (`scenario: {}`), exactly like the
 * documented list: a client has only `definition-json.scenario_name` and `scenario-snapshot-id` (which is NOT
 * the scenario id) to go on.
 */
export function snapshotResource(store: CucumberStudioStore, snap: TestSnapshot, include: SnapshotIncludes = {}): Resource {
  const scenario = store.scenario(snap.scenarioId) as Scenario;
  const last = store.latestResult(snap);
  const lastResult: Record<string, unknown> = {
    links: { self: `/test-snapshots/${snap.id}/relationships/last-result`, related: `/test-snapshots/${snap.id}/last-result` },
  };
  if (include.lastResult) lastResult.data = last ? { type: 'test-results', id: String(last.id) } : null;
  const relationships: Record<string, unknown> = {
    scenario: include.scenario ? { data: { type: 'scenarios', id: String(snap.scenarioId) } } : {},
    dataset: include.dataset ? { data: snap.dataset ? { type: 'datasets', id: String(snap.dataset.id) } : null } : {},
    'last-result': lastResult,
  };
  return {
    type: 'test-snapshots',
    id: String(snap.id),
    attributes: {
      ...audit(snap.createdAt, last?.updatedAt ?? snap.createdAt, last?.statusAuthor ?? store.config.uid),
      name: snap.name,
      'definition-json': {
        scenario_name: scenario.name,
        dataset_name: snap.dataset?.name ?? null,
        dataset_id: snap.dataset?.id ?? null,
        steps: store.steps(scenario, snap.dataset),
        index: snap.dataset?.index ?? 0,
      },
      status: store.latestStatus(snap),
      'scenario-snapshot-id': snap.scenarioSnapshotId,
      'folder-snapshot-id': snap.folderSnapshotId,
    },
    links: { self: `/test-snapshots/${snap.id}` },
    relationships,
  };
}

/** A result; one posted with no build links `build: {data: null}` (the reference's example) and no environment. */
export function resultResource(store: CucumberStudioStore, result: TestResult): Resource {
  const build = store.builds.buildOf(result);
  return {
    type: 'test-results',
    id: String(result.id),
    attributes: {
      ...audit(result.createdAt, result.updatedAt, store.config.uid),
      status: result.status,
      'status-author': result.statusAuthor,
      description: result.description,
      'step-statuses': result.stepStatuses.slice(),
      'test-snapshot-id': result.snapshotId,
      ...(build ? { 'execution-environment-id': build.environmentId } : {}),
    },
    links: { self: `/test-results/${result.id}` },
    relationships: {
      'test-snapshot': { data: { type: 'test-snapshots', id: String(result.snapshotId) } },
      build: { data: build ? { type: 'builds', id: String(build.id) } : null },
      'execution-environment': build ? { data: { type: 'execution-environments', id: String(build.environmentId) } } : {},
    },
  };
}
