/**
 * The run export of the token routes (spec §5.2): `GET {site}/publication/{token}/test_run/{trid}` answers the run as
 * XML, the only place where test **uids** are published, and `GET …/publication/{token}/test_runs` lists the runs.
 *
 * Uids: the service's are random; the sandbox derives them from the object's kind and id and from how many resets
 * the store has been through (`uidEpoch`), so a uid never names two tests of one sandbox's life and a client that
 * keeps stale uids across a reset meets what it would in production: "0 tests imported".
 *
 * Choices where the reference is silent ([unspec] there):
 * - while the run's tests are generated: `publicationWhileGenerating` — `'partial'` (default, the reference's
 *   suggestion: 200 with the tests generated so far, possibly none) or `'423'`;
 * - `filter_status=S` keeps the tests whose latest result (in any build) has status S (`undefined` = no result);
 * - Content-Type `application/xml; charset=utf-8`.
 */
import { createHash } from 'node:crypto';
import type { SandboxResponse } from '../types';
import type { CucumberStudioStore, Scenario, TestRun, TestSnapshot } from './store';

/** A deterministic UUID (version-4 layout) for an object of `kind` with `id` in reset epoch `epoch`. */
export function uidOf(epoch: number, kind: string, id: number): string {
  const hex = createHash('sha256').update(`cucumberstudio-sandbox:${epoch}:${kind}:${id}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function testUid(store: CucumberStudioStore, snapshot: TestSnapshot): string {
  return uidOf(store.uidEpoch, 'test-snapshot', snapshot.id);
}

/** Every test that exists now (generated), by its uid, over all runs of the project. */
export function testsByUid(store: CucumberStudioStore): Map<string, TestSnapshot> {
  const byUid = new Map<string, TestSnapshot>();
  const now = store.now();
  for (const snapshot of store.snapshots.values()) if (store.isReady(snapshot, now)) byUid.set(testUid(store, snapshot), snapshot);
  return byUid;
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

const XML_HEADERS = { 'content-type': 'application/xml; charset=utf-8' };

/** `GET …/publication/{token}/test_runs` — ids are strings (spec §5). */
export function publicationRuns(store: CucumberStudioStore, route: string): SandboxResponse {
  const runs = [...store.runs.values()].map((r) => ({ id: String(r.id), name: r.name, created_at: new Date(r.createdAt).toISOString() }));
  return { status: 200, route, body: { test_runs: runs } };
}

/** `GET …/publication/{token}/test_run/{trid}`: the run as the vendor's CLI reads it (spec §5.2), or 404 / 423. */
export function publicationRun(store: CucumberStudioStore, runId: number, route: string, filterStatus: string | null): SandboxResponse {
  const run = store.runs.get(runId);
  if (!run) return { status: 404, route, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '' };
  if (store.isGenerating(run) && store.settings.publicationWhileGenerating === '423') {
    return { status: 423, route, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Test run is being generated' };
  }
  const now = store.now();
  const tests = run.snapshots.filter((s) => store.isReady(s, now) && (filterStatus === null || store.latestStatus(s) === filterStatus));
  return { status: 200, route, headers: XML_HEADERS, body: runDocument(store, run, tests) };
}

function runDocument(store: CucumberStudioStore, run: TestRun, tests: TestSnapshot[]): string {
  const e = store.uidEpoch;
  const folderUid = uidOf(e, 'folder-snapshot', run.folderSnapshotId);
  const byScenarioSnapshot = new Map<number, TestSnapshot[]>();
  for (const t of tests) byScenarioSnapshot.set(t.scenarioSnapshotId, [...(byScenarioSnapshot.get(t.scenarioSnapshotId) ?? []), t]);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<project format="0.1">',
    `  <name>${xml(store.config.projectName)}</name>`,
    `  <uid>${uidOf(e, 'project', store.config.projectId)}</uid>`,
    '  <testRuns>',
    '    <testRun>',
    `      <name>${xml(run.name)}</name>`,
    `      <uid>${uidOf(e, 'test-run', run.id)}</uid>`,
    '      <folderSnapshots>',
    `        <folderSnapshot><name>${xml(store.config.projectName)}</name><uid>${folderUid}</uid></folderSnapshot>`,
    '      </folderSnapshots>',
    '      <scenarioSnapshots>',
    ...[...byScenarioSnapshot.entries()].flatMap(([id, list]) => scenarioSnapshot(store, id, list, folderUid)),
    '      </scenarioSnapshots>',
    '      <actionwordSnapshots/>',
    '    </testRun>',
    '  </testRuns>',
    '</project>',
    '',
  ];
  return lines.join('\n');
}

function scenarioSnapshot(store: CucumberStudioStore, id: number, tests: TestSnapshot[], folderUid: string): string[] {
  const scenario = store.scenario(tests[0].scenarioId) as Scenario;
  const e = store.uidEpoch;
  const datatable =
    scenario.datasets.length === 0
      ? []
      : [
          '          <parameters><parameter><name>value</name></parameter></parameters>',
          '          <datatable>',
          ...scenario.datasets.map(
            (d) =>
              `            <dataset><name>${xml(d.name)}</name><datasetUid>${uidOf(e, 'dataset', d.id)}</datasetUid>` +
              `<arguments><argument><name>value</name><value><stringliteral>${xml(d.data.value)}</stringliteral></value></argument></arguments></dataset>`,
          ),
          '          </datatable>',
        ];
  return [
    '        <scenarioSnapshot>',
    `          <name>${xml(scenario.name)}</name>`,
    `          <uid>${uidOf(e, 'scenario-snapshot', id)}</uid>`,
    `          <folderUid>${folderUid}</folderUid>`,
    ...datatable,
    '          <testSnapshots>',
    ...tests.map((t) => testSnapshot(store, scenario, t)),
    '          </testSnapshots>',
    '        </scenarioSnapshot>',
  ];
}

function testSnapshot(store: CucumberStudioStore, scenario: Scenario, t: TestSnapshot): string {
  const steps = store
    .steps(scenario, t.dataset)
    .map((s) => ('action' in s ? ['action', s.action] : ['result', s.result]))
    .map(([type, value]) => `<step><type>${type}</type><value>${xml(value)}</value></step>`)
    .join('');
  const dataset = t.dataset
    ? `<datasetUid>${uidOf(store.uidEpoch, 'dataset', t.dataset.id)}</datasetUid><datasetName>${xml(t.dataset.name)}</datasetName>`
    : '';
  return (
    `            <testSnapshot><scenarioName>${xml(scenario.name)}</scenarioName><uid>${testUid(store, t)}</uid>` +
    `<index>${t.dataset?.index ?? 0}</index>${dataset}<steps>${steps}</steps></testSnapshot>`
  );
}
