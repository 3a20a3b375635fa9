/** Plain-JSON view of what the Xray stand-in holds (tests, demo, bench assert on it; `sandbox.state().xray`). */
import type { XrayEvent, XrayStatus, XrayStore } from './store';

export interface XrayRunView {
  id: string;
  testKey: string;
  testIssueId: string;
  status: string;
  comment: string;
  startedOn: string | null;
  finishedOn: string | null;
  defects: string[];
  steps: string[];
  evidence: Array<{ id: string; filename: string; mimeType: string; size: number; sha256: string }>;
}

export interface XrayExecutionView {
  key: string;
  issueId: string;
  summary: string;
  description: string;
  labels: string[];
  fields: Record<string, unknown>;
  environments: string[];
  /** Keys of the Test Plans it is linked to. */
  testPlans: string[];
  runs: XrayRunView[];
}

export interface XrayStateView {
  projectKey: string;
  executions: XrayExecutionView[];
  testPlans: Array<{ key: string; issueId: string; executions: string[] }>;
  statuses: XrayStatus[];
  /** Things tests assert never happen (silent TODOs, `testInfo`, extra step results, skipped keys). */
  events: XrayEvent[];
  counters: Record<string, number>;
}

export function xrayCounters(store: XrayStore): Record<string, number> {
  return {
    ...store.counters,
    silentTodo: store.count('silentTodo'),
    testInfo: store.count('testInfo'),
    extraStepResults: store.count('extraStepResults'),
    partialSkipped: store.count('partialSkipped'),
  };
}

export function xrayStateView(store: XrayStore): XrayStateView {
  const issues = [...store.issues.values()];
  const plans = issues.filter((i) => i.type === 'Test Plan');
  const keyOf = (id: string) => store.issues.get(id)?.key ?? id;
  return {
    projectKey: store.fixtures.projectKey,
    executions: issues
      .filter((i) => i.type === 'Test Execution')
      .map((e) => ({
        key: e.key,
        issueId: e.id,
        summary: e.summary,
        description: e.description,
        labels: [...e.labels],
        fields: structuredClone(e.fields),
        environments: [...(e.environments ?? [])],
        testPlans: plans.filter((p) => p.executions!.includes(e.id)).map((p) => p.key),
        runs: [...e.runs!.values()].map((r) => ({
          id: r.id,
          testKey: keyOf(r.testId),
          testIssueId: r.testId,
          status: r.status,
          comment: r.comment,
          startedOn: r.startedOn,
          finishedOn: r.finishedOn,
          defects: [...r.defects],
          steps: [...r.steps],
          evidence: r.evidence.map(({ id, filename, mimeType, size, sha256 }) => ({ id, filename, mimeType, size, sha256 })),
        })),
      })),
    testPlans: plans.map((p) => ({ key: p.key, issueId: p.id, executions: p.executions!.map(keyOf) })),
    statuses: store.statuses(),
    events: store.events.map((e) => ({ ...e })),
    counters: xrayCounters(store),
  };
}
