import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** One request in a pacing window: its send time until answered, then its answer time. */
export interface PacingEntry {
  t: number;
  done: boolean;
}

/** What the other processes pacing against the same limit hold in their windows now. */
export interface PeerWindows {
  /** Their entries that count now (in flight, or answered within the window). */
  counted: number;
  /** How many of them there are (each may be taking a slot right now, unseen). */
  processes: number;
  /** When the first of their answered entries leaves the window, if any counts. */
  nextExpiry?: number;
}

/**
 * The other processes of this machine that pace against the same limit, e.g. CucumberStudio's 200 calls
 * a minute per IP, which parallel CI jobs on one runner share (field evidence). A lane publishes its
 * window after every change and counts theirs before it sends.
 */
export interface PacingPeers {
  others(now: number, windowMs: number): PeerWindows;
  publish(entries: readonly PacingEntry[]): void;
  /** `now` on the lane's clock. */
  close(now?: number): void;
}

/** The folder where the processes of this machine that call `origin` keep their windows. */
export function machinePacingDir(origin: string, root: string = os.tmpdir()): string {
  const scope = createHash('sha256').update(origin).digest('hex').slice(0, 16);
  return path.join(root, 'playwright-tms-reporter-pacing', scope);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Windows kept as one small file per process (`<pid>-<random>.json`, replaced by rename so that a reader
 * never sees half of one). A process that ends leaves its last window; the next reader removes it once
 * nothing in it counts (also the file of a process killed outright). Pacing is a
 * courtesy to the service, never a reason to fail: if the folder cannot be used, the lane paces alone.
 */
export class FilePacingPeers implements PacingPeers {
  private readonly file: string;
  private readonly own: string;
  /** Set once the folder cannot be used, and at close. */
  private off = false;
  private written = false;
  /** A run cut short (publishTimeout, a signal) leaves its window behind as at close. */
  private readonly onExit = () => this.leave(Date.now());

  /** This process's window as last published. */
  private entries: readonly PacingEntry[] = [];

  constructor(
    private readonly dir: string,
    private readonly windowMs: number,
  ) {
    this.own = `${process.pid}-${randomBytes(4).toString('hex')}.json`;
    this.file = path.join(dir, this.own);
  }

  others(now: number, windowMs: number): PeerWindows {
    const result: PeerWindows = { counted: 0, processes: 0 };
    if (this.off) return result;
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return result; // nobody has sent yet
    }
    for (const name of names) {
      const pid = Number(/^(\d+)-[0-9a-f]+\.json$/.exec(name)?.[1]);
      if (name === this.own || !pid) continue;
      const file = path.join(this.dir, name);
      let entries: Array<[number, 0 | 1]>;
      let writtenAt: number;
      try {
        writtenAt = fs.statSync(file).mtimeMs;
        entries = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<[number, 0 | 1]>;
      } catch {
        continue; // removed meanwhile
      }
      const live = alive(pid);
      // A process that is gone sends nothing more, but what it sent last still counts at the service; a
      // request it had in flight (killed without its exit handler) is dated at its last write.
      const times = entries.map(([t, done]) => (done || !live ? (done ? t : writtenAt) : Infinity));
      const counting = times.filter((t) => t > now - windowMs);
      if (!live && !counting.length) {
        fs.rm(file, { force: true }, () => undefined);
        continue;
      }
      if (live) result.processes++;
      result.counted += counting.length;
      for (const t of counting) if (t !== Infinity) result.nextExpiry = Math.min(result.nextExpiry ?? Infinity, t + windowMs);
    }
    return result;
  }

  publish(entries: readonly PacingEntry[]): void {
    if (this.off) return;
    this.entries = entries;
    try {
      if (!this.written) {
        fs.mkdirSync(this.dir, { recursive: true });
        process.once('exit', this.onExit);
        this.written = true;
      }
      this.write(entries.map((e) => [e.t, e.done ? 1 : 0]));
    } catch {
      this.off = true;
    }
  }

  private write(entries: Array<[number, 0 | 1]>): void {
    const temp = `${this.file}.tmp`;
    try {
      fs.writeFileSync(temp, JSON.stringify(entries));
      fs.renameSync(temp, this.file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  }

  /**
   * Leaves: what this process sent within the window still counts for the others (the service counts it),
   * so the window stays behind, every request dated as answered by now at the latest, for the next reader
   * to drop once it has expired; with nothing left in the window, the file goes at once.
   */
  close(now: number = Date.now()): void {
    process.removeListener('exit', this.onExit);
    if (!this.off) this.leave(now);
  }

  private leave(now: number): void {
    this.off = true;
    if (!this.written) return;
    const last = this.entries
      .filter((e) => !e.done || e.t > now - this.windowMs)
      .map((e): [number, 0 | 1] => [e.done ? Math.min(e.t, now) : now, 1]);
    try {
      if (last.length) return this.write(last);
      fs.rmSync(this.file, { force: true });
      fs.rmdirSync(this.dir); // only when no other process uses it
      fs.rmdirSync(path.dirname(this.dir));
    } catch {
      // another process still paces here
    }
  }
}
