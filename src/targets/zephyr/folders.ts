import { BadResponseError, HttpError } from '../../http/errors';
import type { RequestLane } from '../../kit/lane';
import type { ZephyrClient, ZephyrExecution } from './client';
import { PAGE_SIZE, parseExecutionPage, type ExecutionPage, type RawExecutionPage } from './executions';

/** A folder of the cycle: where one Playwright project's executions are filed (split mode). */
export interface ZephyrFolder {
  id: string;
  name: string;
}

export interface CycleWhere {
  cycleId: string;
  projectId: number;
  versionId: number;
}

/**
 * Split mode (`projects: 'split'`): the folder of a Playwright project, named as the project. An unnamed project
 * ('') has none: its executions are the cycle root's, as in merge mode, so a config whose only project has no name
 * looks the same in both modes.
 */
export function folderNameFor(place: string | undefined): string | undefined {
  return place === undefined || place.trim() === '' ? undefined : place.trim();
}

/** Folder names are unique in a cycle; compared trimmed and case-insensitively (field evidence: either rule may apply). */
const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The folder calls (wire reference §4.5 #13, #14, #24, #29, and the field evidence). */
export class FolderCalls {
  constructor(private readonly client: ZephyrClient) {}

  /** The cycle's folders (a bare array). */
  async list(w: CycleWhere): Promise<ZephyrFolder[]> {
    const { cycleId, projectId, versionId } = w;
    const list = await this.client.json<unknown>('folders', 'GET', '/folders', { cycleId, projectId, versionId });
    if (!Array.isArray(list))
      throw new BadResponseError('Zephyr', 200, `Zephyr answered GET /folders with ${typeof list} where a list was expected`);
    return (list as Array<{ id?: unknown; name?: unknown }>)
      .filter((f) => f && f.id !== undefined && f.id !== null)
      .map((f) => ({ id: String(f.id), name: String(f.name ?? '') }));
  }

  /** One attempt of a create (no retry): the caller looks before repeating it. */
  async createOnce(name: string, w: CycleWhere): Promise<ZephyrFolder> {
    const text = await this.client.exchange('folder/create', 'POST', '/folder', {}, { name, description: 'Playwright project', ...w });
    const made = JSON.parse(text) as { id?: unknown; name?: unknown } | null;
    if (!made || made.id === undefined || made.id === null)
      throw new BadResponseError('Zephyr', 200, `Zephyr answered the creation of folder "${name}" with no folder id`);
    return { id: String(made.id), name: String(made.name ?? name) };
  }

  /** Adds tests by Jira key (≤ 100 per call) to the folder: a job, as for the cycle root; `cycleId` always sent. */
  addTests(folderId: string, keys: readonly string[], w: CycleWhere): Promise<string> {
    return this.client.job('executions/add-folder', `/executions/add/folder/${encodeURIComponent(folderId)}`, {
      method: 1,
      issues: keys,
      ...w,
    });
  }

  /** One page (≤ 50) of the folder's executions (the cycle search does not list them). */
  async page(folderId: string, w: CycleWhere, offset: number): Promise<ExecutionPage> {
    const path = `/executions/search/folder/${encodeURIComponent(folderId)}`;
    const page = await this.client.json<RawExecutionPage>('executions/search-folder', 'GET', path, { ...w, offset, size: PAGE_SIZE });
    if (!Array.isArray(page.searchObjectList))
      throw new BadResponseError('Zephyr', 200, `Zephyr answered GET ${path} without a list of executions (searchObjectList)`);
    return parseExecutionPage(page);
  }

  /** Every execution of the folder by key: ceil(executions / 50) reads. */
  async readAll(folderId: string, w: CycleWhere): Promise<Map<string, ZephyrExecution>> {
    const byKey = new Map<string, ZephyrExecution>();
    const keep = (items: ExecutionPage['items']) => {
      for (const { cycleId: _c, versionId: _v, folderId: _f, ...e } of items) byKey.set(e.issueKey, e);
    };
    const first = await this.page(folderId, w, 0);
    keep(first.items);
    const offsets: number[] = [];
    for (let o = first.items.length; o < first.total && first.items.length > 0; o += first.items.length) offsets.push(o);
    await Promise.all(offsets.map(async (o) => keep((await this.page(folderId, w, o)).items)));
    return byKey;
  }

  /**
   * The folder named `name`, created when missing: one list, maybe one create. A name already used answers 400
   * (errorCode 152): another process of the CI build (a job per project, a shard) made it first, so the folders are
   * listed again and that one is used (compared trimmed, case-insensitively); if none matches, the service's words.
   */
  async findOrCreate(lane: RequestLane, name: string, w: CycleWhere): Promise<ZephyrFolder> {
    const named = async () => (await this.list(w)).find((f) => sameName(f.name, name));
    const found = await named();
    if (found) return found;
    let made: ZephyrFolder | undefined;
    await lane.retry(
      'folder/create',
      async (_attempt, mayHaveApplied) => {
        // A create that may have been applied (500 after applying, reset): look before making another.
        if (mayHaveApplied && (made = await named())) return;
        try {
          made = await this.createOnce(name, w);
        } catch (error) {
          if (!isRefusal(error)) throw error;
          made = await named();
          if (!made) throw error;
        }
      },
      `folder "${name}" in cycle ${w.cycleId}`,
    );
    return made!;
  }
}

/** A 4xx that is a refusal (not a wait: 408 and 429 are the lane's to retry). */
function isRefusal(error: unknown): boolean {
  return error instanceof HttpError && error.status >= 400 && error.status < 500 && ![408, 429].includes(error.status);
}
