import { head, isDefaultComment } from '../../shared/comment';
import { UNEXECUTED } from './statuses';

/**
 * Worst wins across every publish of one CI build. Zephyr keeps no status history (re-using an execution
 * overwrites it) and the bulk status call leaves comments alone, so the comment is where a build's worse
 * result survives another process's better one: every comment the reporter writes ends with a line naming
 * the build and the status it was written with, e.g. `playwright-tms-reporter · build 1234 · FAIL`.
 * - A comment marked with THIS build and a worse status than ours: ours is not written (the worse one stands).
 * - A comment marked with ANOTHER build, or an unmarked one the reporter wrote (before marks): stale, ours
 *   replaces it (a PASS clears it).
 * - A key of ours whose tests did not run sets UNEXECUTED over what an earlier build left (see `stale`).
 */
const PREFIX = 'playwright-tms-reporter · build ';
const MARK_LINE = /(?:^|\n)playwright-tms-reporter · build (.+) · ([^\n·]+)$/;
/** A build id is a CI label or `local <hex>`; a long one is cut so the mark stays one short line. */
const BUILD_SHOWN = 60;

export interface BuildMark {
  build: string;
  /** The status's name as written. */
  status: string;
}

/** The comment with its mark, within `limit` (the comment is cut, never the mark). */
export function markComment(comment: string, build: string, statusName: string, limit: number): string {
  const mark = `${PREFIX}${head(build, BUILD_SHOWN)} · ${statusName}`;
  const room = Math.max(0, limit - mark.length - 2);
  return `${head(comment, room)}\n\n${mark}`;
}

/** The mark a comment ends with, if any. */
export function readMark(comment: string | undefined): BuildMark | undefined {
  const m = comment ? MARK_LINE.exec(comment) : null;
  return m ? { build: m[1]!, status: m[2]!.trim() } : undefined;
}

/** What the writer and the reconcile need to know of this publish's build and of the statuses' order. */
export class BuildMarks {
  constructor(
    /** RunInfo.buildId (shortened as a mark shows it). */
    build: string,
    /** Whether other processes may publish this build too (a CI build, not a local run's own). */
    readonly shared: boolean,
    /** Status id -> name (tenant's, then built-in) and name -> id. */
    private readonly names: { name(id: number): string; id(name: string): number | undefined },
    /** Worst-wins rank of a status id (higher is worse). */
    private readonly rank: (statusId: number) => number,
  ) {
    this.build = head(build, BUILD_SHOWN);
  }

  readonly build: string;
  /**
   * Whether the cycle held results of an earlier build when this process began (a local run: always; a CI
   * build: the cycle's `build` field named another build). Then a status with no mark (a bulk PASS) is stale.
   */
  earlierBuild = true;

  mark(comment: string, statusId: number, limit: number): string {
    return markComment(comment, this.build, this.names.name(statusId), limit);
  }

  /** The status a comment marked with THIS build was written with. */
  ownBuildStatus(comment: string | undefined): number | undefined {
    const m = readMark(comment);
    return m && m.build === this.build ? this.names.id(m.status) : undefined;
  }

  /** The worse of two statuses (the first when equal). */
  worst(a: number, b: number | undefined): number {
    return b !== undefined && this.rank(b) > this.rank(a) ? b : a;
  }

  /** `a` is a better result than `b` (PASS than FAIL). */
  better(a: number, b: number): boolean {
    return this.rank(a) < this.rank(b);
  }

  /** The room a mark takes at the end of a comment with this status. */
  room(statusId: number): number {
    return this.mark('', statusId, Infinity).length;
  }

  /** A result of this build worse than `status` is on the execution already: `status` must not replace it. */
  worseHere(e: { comment?: string }, status: number): boolean {
    const here = this.ownBuildStatus(e.comment);
    return here !== undefined && this.rank(here) > this.rank(status);
  }

  /** The execution says what an earlier build (or nobody) left: a result of this build replaces it, a skip included. */
  stale(e: { statusId: number; comment?: string }): boolean {
    if (e.statusId === UNEXECUTED && !e.comment) return false;
    const m = readMark(e.comment);
    if (m) return m.build !== this.build;
    // A failure comment from before marks is an earlier build's; an unmarked status is, when the cycle was another build's.
    return isDefaultComment(e.comment ?? '') || this.earlierBuild;
  }
}
