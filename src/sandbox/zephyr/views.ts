import { UNEXECUTED, type Cycle, type Execution, type ZephyrStore } from './store';
import { foldersOf } from './folders';
import { executionEvidence, type ExecutionEvidenceSnapshot } from './views-evidence';

/** Cycle object (§3.5) plus `status`; with `expand=executionSummaries` also the totals and per-status counts. */
export function cycleView(store: ZephyrStore, cycle: Cycle, expand: string | null): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: cycle.id,
    name: cycle.name,
    description: cycle.description,
    build: cycle.build,
    environment: cycle.environment,
    startDate: cycle.startDate,
    endDate: cycle.endDate,
    projectId: cycle.projectId,
    versionId: cycle.versionId,
    versionName: store.versionName(cycle.versionId),
    sprintId: cycle.sprintId,
    createdBy: cycle.createdByAccountId,
    createdByAccountId: cycle.createdByAccountId,
    modifiedBy: cycle.modifiedByAccountId,
    modifiedByAccountId: cycle.modifiedByAccountId,
    creationDate: cycle.creationDate,
    status: store.cycleStatus(cycle),
  };
  if (expandIncludes(expand, 'executionSummaries')) {
    // The counts include the folders' executions, which the cycle search does not list (§3.5, field evidence).
    const all = store.allExecutionsOf(cycle);
    const counts = new Map<number, number>();
    for (const e of all) counts.set(e.statusId, (counts.get(e.statusId) ?? 0) + 1);
    view.totalExecutions = all.length;
    view.totalExecuted = all.filter((e) => e.statusId !== UNEXECUTED).length;
    view.executionSummaries = [...counts]
      .sort((a, b) => a[0] - b[0])
      .map(([id, count]) => {
        const s = store.status(id);
        // By name only: production's summaries are not known to carry the status id (field evidence).
        return { executionStatusName: s?.name ?? String(id), executionStatusColor: s?.color ?? '', count };
      });
  }
  return view;
}

export function expandIncludes(expand: string | null, what: string): boolean {
  return (expand ?? '').split(',').some((x) => x.trim() === what);
}

/** Search item wrapper (§3.4) around one execution. */
export function executionWrapper(store: ZephyrStore, e: Execution): Record<string, unknown> {
  const status = store.status(e.statusId) ?? { id: e.statusId, name: String(e.statusId), description: '', color: '', type: 1 };
  const cycle = store.containerOf(e);
  const execution: Record<string, unknown> = {
    id: e.id,
    issueId: e.issueId,
    projectId: e.projectId,
    versionId: e.versionId,
    cycleId: e.cycleId,
    cycleName: cycle?.name ?? '',
    folderId: e.folderId,
    orderId: e.orderId,
    status: { ...status },
    executionStatus: String(e.statusId),
    comment: e.comment,
    createdBy: e.createdByAccountId,
    createdByAccountId: e.createdByAccountId,
    creationDate: e.creationDate,
    modifiedBy: e.modifiedByAccountId,
    modifiedByAccountId: e.modifiedByAccountId,
    defects: [],
    stepDefects: [],
    executionDefectCount: 0,
    stepDefectCount: 0,
    totalDefectCount: 0,
  };
  if (e.executedOn !== null) {
    execution.executedOn = e.executedOn;
    execution.executedBy = e.executedByAccountId;
    execution.executedByAccountId = e.executedByAccountId;
  }
  const issue = store.issueById(e.issueId);
  return {
    execution,
    issueKey: e.issueKey,
    issueSummary: issue?.summary ?? '',
    issueDescription: '',
    issueLabel: '',
    component: '',
    projectKey: store.cfg.projectKey,
    projectName: store.cfg.projectName,
    versionName: store.versionName(e.versionId),
    priority: 'Medium',
    executedByDisplayName: e.executedByAccountId ?? '',
    defectsAsString: '',
    testStepBeans: [],
  };
}

export type ExecutionSnapshot = {
  id: string;
  issueId: number;
  issueKey: string;
  statusId: number;
  comment: string;
  executedOn: number | null;
  orderId: number;
  statusChanges: number;
  statusHistory: number[];
  createdVia: Execution['createdVia'];
} & ExecutionEvidenceSnapshot;

function executionSnapshot(store: ZephyrStore, e: Execution): ExecutionSnapshot {
  return {
    id: e.id,
    issueId: e.issueId,
    issueKey: e.issueKey,
    statusId: e.statusId,
    comment: e.comment,
    executedOn: e.executedOn,
    orderId: e.orderId,
    statusChanges: e.statusChanges,
    statusHistory: e.statusHistory.slice(),
    createdVia: e.createdVia,
    ...executionEvidence(store, e),
  };
}

export interface ZephyrSnapshot {
  cycles: {
    id: string;
    name: string;
    projectId: number;
    versionId: number;
    description: string;
    build: string;
    environment: string;
    createdByAccountId: string;
    /** The cycle's root executions only (as `executions/search/cycle` lists them). */
    executions: ExecutionSnapshot[];
    /** The cycle's folders in creation order, each with its own executions. */
    folders: { id: string; name: string; description: string; executions: ExecutionSnapshot[] }[];
  }[];
  jobs: { total: number; pending: number };
  statuses: { id: number; name: string; description: string; color: string; type: number }[];
}

/** Plain-JSON state: real cycles in creation order, then Ad hoc pseudo-cycles that hold executions. */
export function snapshotCycles(store: ZephyrStore): ZephyrSnapshot['cycles'] {
  const all = [...store.cycles.values(), ...[...store.adHoc.values()].filter((c) => c.executions.length > 0)];
  return all.map((c) => ({
    id: c.id,
    name: c.name,
    projectId: c.projectId,
    versionId: c.versionId,
    description: c.description,
    build: c.build,
    environment: c.environment,
    createdByAccountId: c.createdByAccountId,
    executions: c.executions.map((e) => executionSnapshot(store, e)),
    folders: foldersOf(store, c).map((f) => ({
      id: f.id,
      name: f.name,
      description: f.description,
      executions: f.executions.map((e) => executionSnapshot(store, e)),
    })),
  }));
}
