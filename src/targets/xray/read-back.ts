/**
 * The read-back of the runs this process sent, done during the run: after an import is confirmed, the runs of its
 * keys are read (one `getTestRuns` call per ≤ 100 Test ids, the same pages the end would read), so that `verify`
 * at the end reads only what was not read yet — the last batch, a key sent again since its read. At 2,000 tests the
 * end's 20 pages were most of the tail after the last test (bench figure 13).
 *
 * Rule: a read counts for the send it followed only. Every send of a key (each import attempt) moves its send
 * number; a read taken for an earlier number is not trusted, and the end reads the key again. What someone else
 * changes in the execution after our read is not ours to catch: a local run is a build of its own, nobody else
 * writes its results. A CI build or a replay is not read mid-run at all (`XrayTarget` decides): another process of
 * the build may overwrite a key later with a worse result (worst wins), and only the end can see what stayed.
 * A read keeps the run's comment with its status: its first line names the build that wrote it, and `verify` takes
 * a worse result of this build (another process's, written after our import) as kept, not as a failure.
 */
import type { XrayClient } from './client';
import { PAGE, runs, type ExecutionRef, type RunRef } from './queries';
import { buildOf, worseOfBuild } from './results';

/** The lane label of the read-back's calls: a verification read, worth less than any status (definition.ts). */
export const READ_BACK = 'readBack';

export interface ReadKey {
  /** The engine's key (split mode: with its place): what `expected` is kept by. */
  key: string;
  /** The key as Xray knows it. */
  testKey: string;
  testIssueId: string;
}

/** What a run held when read: its status, and its comment (the build that wrote it, results.ts `buildOf`). */
export type HeldRun = Pick<RunRef, 'status' | 'comment'>;

/**
 * What the read-back makes of a key's run, against what this process wants it to hold (`want`: what it sent, or the
 * worse result of this build it found and left): the same status; `'kept'`, a worse result of this build that another
 * process wrote (worst wins across the build's processes, whenever it came: before our import, or between our import
 * and our read); else a failure, told by what the run holds — no run, a better result (ours or the build's worst was
 * lost), or a worse one that is not this build's (an earlier build's, or one edited by hand: its build is named).
 */
export function judgeRun(
  run: HeldRun | undefined,
  want: string,
  buildId: string | undefined,
  rank: (status: string) => number,
): 'same' | 'kept' | { holds: string } {
  if (run === undefined) return { holds: 'no run' };
  if (run.status === want) return 'same';
  if (worseOfBuild(run, buildId, want, rank)) return 'kept';
  if (rank(run.status) <= rank(want)) return { holds: run.status };
  const build = buildOf(run.comment);
  return { holds: `${run.status} (${build === undefined ? 'no build named' : `build ${build}`})` };
}

interface Read {
  /** The send it followed. */
  send: number;
  /** The run the execution held then; undefined: no run. */
  run: HeldRun | undefined;
}

export class ReadBack {
  private readonly sends = new Map<string, number>();
  private readonly reads = new Map<string, Read>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly client: XrayClient) {}

  /** A key is about to be sent (again): any read taken before stops counting. */
  sending(key: string): void {
    this.sends.set(key, (this.sends.get(key) ?? 0) + 1);
  }

  /**
   * Reads the confirmed keys' runs in the background (the caller's statuses are not held for it); a read that fails
   * leaves its keys to the end.
   */
  confirmed(execution: ExecutionRef, keys: readonly ReadKey[]): void {
    const at = new Map(keys.map((k) => [k.key, this.sends.get(k.key) ?? 0]));
    const read = this.read(execution, keys).then(
      (held) => {
        for (const k of keys) this.reads.set(k.key, { send: at.get(k.key)!, run: held.get(k.testKey) });
      },
      () => undefined,
    );
    this.pending.add(read);
    void read.finally(() => this.pending.delete(read));
  }

  /** Every read begun so far, settled. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * Engine key -> the run each key holds (undefined: no run): as read after its last send, else read now (a key
   * without a Test id has no run to read).
   */
  async held(execution: ExecutionRef, keys: readonly ReadKey[]): Promise<Map<string, HeldRun | undefined>> {
    const trusted = (k: ReadKey) => {
      const read = this.reads.get(k.key);
      return read && read.send === (this.sends.get(k.key) ?? 0) ? read : undefined;
    };
    const now = await this.read(
      execution,
      keys.filter((k) => k.testIssueId && !trusted(k)),
    );
    return new Map(keys.map((k) => [k.key, trusted(k) ? trusted(k)!.run : now.get(k.testKey)]));
  }

  /** Test key -> run held, for these keys' runs in the execution (100 Test ids a call, the calls together). */
  async read(execution: ExecutionRef, keys: readonly ReadKey[]): Promise<Map<string, HeldRun>> {
    const held = new Map<string, HeldRun>();
    const calls = [];
    for (let i = 0; i < keys.length; i += PAGE) {
      const ids = keys.slice(i, i + PAGE).map((k) => k.testIssueId);
      calls.push(runs(this.client, execution.issueId, ids, ids.length, READ_BACK));
    }
    for (const found of await Promise.all(calls)) for (const r of found) held.set(r.testKey, { status: r.status, comment: r.comment });
    return held;
  }
}
