import { BadResponseError, HttpError } from '../../http/errors';
import { chunk } from './job-answers';

export const PAGE_SIZE = 50;

export interface ZephyrExecution {
  id: string;
  issueId: number;
  issueKey: string;
  statusId: number;
  /** As the listing gave it (absent when it gave none), then as we last set it. */
  comment?: string;
}

/** A 1.0 search page (`executions/search/cycle`, `zql/search`); ids arrive as numbers or numeric strings. */
export interface RawExecutionPage {
  searchObjectList?: Array<{
    execution?: {
      id: string | number;
      issueId: number | string;
      cycleId?: string | number;
      folderId?: string | number | null;
      versionId?: number | string;
      status?: { id: number | string };
      comment?: unknown;
    };
    issueKey?: string;
  }>;
  totalCount?: number | string;
}

export interface ExecutionPage {
  /** `folderId`: the folder an execution is filed in (a ZQL search by cycle name finds those too). */
  items: Array<ZephyrExecution & { cycleId?: string; versionId?: number; folderId?: string }>;
  total: number;
}

export function parseExecutionPage(page: RawExecutionPage): ExecutionPage {
  const items = (page.searchObjectList ?? [])
    .filter((w) => w.execution && w.issueKey)
    .map((w) => ({
      id: String(w.execution!.id),
      issueId: Number(w.execution!.issueId),
      issueKey: String(w.issueKey),
      statusId: Number(w.execution!.status?.id ?? -1),
      ...(typeof w.execution!.comment === 'string' ? { comment: w.execution!.comment } : {}),
      ...(w.execution!.cycleId !== undefined ? { cycleId: String(w.execution!.cycleId) } : {}),
      ...(w.execution!.versionId !== undefined ? { versionId: Number(w.execution!.versionId) } : {}),
      ...(w.execution!.folderId !== undefined && w.execution!.folderId !== null && String(w.execution!.folderId) !== ''
        ? { folderId: String(w.execution!.folderId) }
        : {}),
    }));
  return { items, total: Number(page.totalCount ?? items.length) };
}

/** A ZQL string literal: double quotes, with `"` and `\` escaped by a backslash. */
const literal = (value: string): string => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** The executions of these issues in cycles of this name (a name is not unique: the caller filters by cycle id). */
export function zqlForKeys(projectId: number, cycleName: string, keys: readonly string[]): string {
  return `project = ${projectId} AND cycleName = ${literal(cycleName)} AND issue in (${keys.map(literal).join(', ')})`;
}

/** What the reader needs from the client: the cycle listing and the ZQL search, one page each. */
export interface ExecutionSource {
  executionsPage(cycleId: string, projectId: number, versionId: number, offset: number): Promise<ExecutionPage>;
  zqlPage(query: string, offset: number): Promise<ExecutionPage>;
}

export interface CycleRef {
  id: string;
  name: string;
  projectId: number;
  versionId: number;
}

/** An answer saying ZQL is not available here (not a transient failure): the listing is read instead. */
const zqlRefused = (error: unknown): boolean =>
  (error instanceof HttpError && error.status >= 400 && error.status < 500 && error.status !== 429) ||
  (error instanceof BadResponseError && error.status < 500);

/**
 * Reads the executions of `wanted` keys in one cycle, by the cheaper of two ways. The cycle listing pages the
 * whole cycle (50 per call): right when this process needs most of it. A shard, a replay or a late key needs a
 * few of many — several shards on one key each paging the shared cycle spent half their calls on it — so once
 * the cycle's size is known (the listing's first page tells it; a later read reuses it) the keys are looked up
 * by ZQL, 50 per call, when that takes fewer calls. ZQL reads a search index that may lag behind the cycle:
 * keys it does not find are then read from the listing, which is the truth, and a service without ZQL is
 * remembered and not asked again.
 */
export class ExecutionReader {
  private zqlUsable = true;
  /** The size of each cycle as last read (it only grows while we add). */
  private readonly sizes = new Map<string, number>();

  constructor(private readonly source: ExecutionSource) {}

  /**
   * `probablyAbsent`: keys the add-tests job named as not added. They are looked for like any other (the
   * message's wording is not established), but once ZQL has found every other key, they alone do not
   * send the read on to the whole listing.
   */
  async read(cycle: CycleRef, wanted: readonly string[], probablyAbsent: ReadonlySet<string> = new Set()): Promise<ZephyrExecution[]> {
    const found = new Map<string, ZephyrExecution>();
    const keep = (items: ExecutionPage['items']) => {
      for (const { cycleId, versionId, folderId, ...e } of items) {
        // ZQL matches the cycle by name: drop another cycle's execution of the same issue, and one filed in a
        // folder of this cycle (split mode: the same issue is an execution of the root and of each folder).
        if (
          folderId === undefined &&
          (cycleId === undefined || cycleId === cycle.id) &&
          (versionId === undefined || versionId === cycle.versionId)
        )
          found.set(e.issueKey, e);
      }
    };
    const missing = () => [...new Set(wanted)].filter((k) => !found.has(k));
    if (!wanted.length) return [];
    const listing = (offset: number) => this.source.executionsPage(cycle.id, cycle.projectId, cycle.versionId, offset);
    // The listing's first page tells the cycle's size; a size read before (a late key, the end's rest) saves it.
    const known = this.sizes.get(cycle.id);
    const first = known === undefined ? await listing(0) : undefined;
    if (first) (keep(first.items), this.sizes.set(cycle.id, first.total));
    if (first && missing().length === 0) return [...found.values()];
    const size = first ? first.total : known! + missing().length;
    const pagesLeft = Math.ceil(Math.max(0, size - (first?.items.length ?? 0)) / PAGE_SIZE);
    const byZql = chunk(missing(), PAGE_SIZE);
    if (this.zqlUsable && byZql.length > 0 && byZql.length < pagesLeft) {
      const pages = await Promise.all(byZql.map((keys) => this.zql(zqlForKeys(cycle.projectId, cycle.name, keys))));
      if (pages.every((p) => p !== undefined)) {
        for (const items of pages) keep(items);
        if (missing().every((k) => probablyAbsent.has(k))) {
          this.sizes.set(cycle.id, Math.max(size, this.sizes.get(cycle.id) ?? 0));
          return [...found.values()];
        }
      }
    }
    const head = first ?? (await listing(0));
    if (!first) keep(head.items);
    this.sizes.set(cycle.id, head.total);
    const offsets: number[] = [];
    for (let offset = head.items.length; offset < head.total && head.items.length > 0; offset += head.items.length) offsets.push(offset);
    // Each page is kept as it comes: waiting for all of them held every page of a large cycle at once (10,000
    // executions read at the end of a run: a few MB that outlived the young generation, bench figure 5).
    await Promise.all(offsets.map(async (offset) => keep((await listing(offset)).items)));
    return [...found.values()];
  }

  /** Every page of one query; undefined when the service refuses ZQL (then it is not asked again). */
  private async zql(query: string): Promise<ExecutionPage['items'] | undefined> {
    try {
      const items: ExecutionPage['items'] = [];
      for (let offset = 0; ;) {
        const page = await this.source.zqlPage(query, offset);
        items.push(...page.items);
        offset += page.items.length;
        if (page.items.length === 0 || offset >= page.total) return items;
      }
    } catch (error) {
      if (!zqlRefused(error)) throw error;
      this.zqlUsable = false;
      return undefined;
    }
  }
}
