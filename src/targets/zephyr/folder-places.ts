import { unplaced } from '../../shared/model';
import type { RequestLane } from '../../kit/lane';
import { Places } from '../../kit/places';
import type { ContainerInfo } from '../../kit/target';
import type { ZephyrClient, ZephyrExecution } from './client';
import type { ZephyrConfig } from './config';
import { CycleMembers } from './cycle-members';
import { FolderCalls, folderNameFor } from './folders';
import type { JobWaitOptions } from './jobs';

/**
 * Where each place's executions are (split mode: a folder per Playwright project; merge mode and an unnamed
 * project: the cycle root). Each folder is found or made once per process (`Places`), on the first key of its
 * project: one folder list, one create when missing. Merge mode makes no folder call.
 */
export class FolderPlaces {
  readonly root: CycleMembers;
  readonly calls: FolderCalls;
  private readonly folders: Places<CycleMembers>;
  /** Folder name -> its members, once found (the sync look-ups: verify's counts, a forgotten execution). */
  private readonly opened = new Map<string, CycleMembers>();

  constructor(
    private readonly cfg: ZephyrConfig,
    client: ZephyrClient,
    lane: RequestLane,
    jobs: JobWaitOptions,
    /** The cycle, once begun. */
    private readonly cycle: () => ContainerInfo,
  ) {
    this.root = new CycleMembers(cfg, client, jobs);
    this.calls = new FolderCalls(client);
    this.folders = new Places(async (name) => {
      const { projectId, versionId } = this.cfg;
      const folder = await this.calls.findOrCreate(lane, name, { cycleId: this.cycle().id, projectId, versionId });
      const members = new CycleMembers(cfg, client, jobs, { folder, calls: this.calls });
      this.opened.set(name, members);
      return members;
    });
  }

  /** The members of a place (its folder found or made on first use; a failure is tried again by the next call). */
  of(place: string | undefined): Promise<CycleMembers> {
    const name = folderNameFor(place);
    return name === undefined ? Promise.resolve(this.root) : this.folders.get(name);
  }

  /** The members of a place already found (undefined: its folder is not found yet). */
  peek(place: string | undefined): CycleMembers | undefined {
    const name = folderNameFor(place);
    return name === undefined ? this.root : this.opened.get(name);
  }

  /** The execution of an engine key (placed in split mode), as last read or set. */
  execution(engineKey: string): ZephyrExecution | undefined {
    const { key, place } = unplaced(engineKey);
    return this.peek(place)?.get(key);
  }

  /** The execution `e` of `key` is gone (removed since read): whichever place holds it adds the key again. */
  forget(key: string, e: ZephyrExecution): void {
    for (const members of [this.root, ...this.opened.values()]) if (members.get(key) === e) members.forget(key);
  }

  /** A key in the cycle or one of its folders (a link's Jira project key comes from it). */
  anyKey(): string | undefined {
    for (const members of [this.root, ...this.opened.values()]) {
      const key = members.anyKey();
      if (key) return key;
    }
    return undefined;
  }

  /** Gets engine keys into their places: grouped by place, each place's folder found or made first. */
  async ensure(engineKeys: readonly string[]): Promise<void> {
    const byPlace = new Map<string | undefined, string[]>();
    for (const k of engineKeys) {
      const { key, place } = unplaced(k);
      const name = folderNameFor(place);
      const keys = byPlace.get(name);
      if (keys) keys.push(key);
      else byPlace.set(name, [key]);
    }
    await Promise.all([...byPlace].map(async ([name, keys]) => (await this.of(name)).ensure(this.cycle(), keys)));
  }

  /** The dry run's line for a place. */
  describe(place: string | undefined, cycle: string): string {
    const name = folderNameFor(place);
    return name === undefined
      ? `the root of ${cycle} (an unnamed Playwright project)`
      : `folder "${name}" of ${cycle} (found by name, or created)`;
  }
}
