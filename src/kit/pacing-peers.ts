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
 * Windows kept as one small file per process (`<pid>-<random>.json`, rewritten in place: see `write`). A
 * process that ends leaves its last window; the next reader removes it once nothing in it counts (also the
 * file of a process killed outright). Pacing is a courtesy to the service, never a reason to fail: if the
 * folder cannot be used, the lane paces alone.
 */
export class FilePacingPeers implements PacingPeers {
  private readonly file: string;
  private readonly own: string;
  /** Set once the folder cannot be used, and at close. */
  private off = false;
  /** This process's file, open from its first publish to its leaving. */
  private fd: number | undefined;
  /** The longest window written so far, in characters: every write is padded to it. */
  private size = 0;
  /** Each peer file's last readable window, for a read that meets a write half done. */
  private readonly lastRead = new Map<string, Array<[number, 0 | 1]>>();
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
      let entries: Array<[number, 0 | 1]> | undefined;
      let writtenAt: number;
      try {
        writtenAt = fs.statSync(file).mtimeMs;
        for (let attempt = 0; attempt < 3 && !entries; attempt++) entries = parseWindow(fs.readFileSync(file, 'utf8'));
      } catch {
        this.lastRead.delete(name);
        continue; // removed meanwhile
      }
      entries ??= this.lastRead.get(name) ?? [];
      this.lastRead.set(name, entries);
      const live = alive(pid);
      // A process that is gone sends nothing more, but what it sent last still counts at the service; a
      // request it had in flight (killed without its exit handler) is dated at its last write.
      const times = entries.map(([t, done]) => (done || !live ? (done ? t : writtenAt) : Infinity));
      const counting = times.filter((t) => t > now - windowMs);
      if (!live && !counting.length) {
        fs.rm(file, { force: true }, () => undefined);
        this.lastRead.delete(name);
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
      if (this.fd === undefined) {
        fs.mkdirSync(this.dir, { recursive: true });
        this.fd = fs.openSync(this.file, 'w');
        process.once('exit', this.onExit);
      }
      this.write(entries.map((e) => [e.t, e.done ? 1 : 0]));
    } catch {
      this.off = true;
    }
  }

  /**
   * One write in place, padded with spaces to the longest window so far: a lane publishes twice a request,
   * and a temp file renamed over the old one cost ~0.25 ms each (the rename is a journaled metadata
   * change), a write in place ~3 µs. A reader that meets a write half done reads the start of one window
   * and the end of the one before (one request apart); as entries have a fixed width (13-digit times), that
   * is still a list of real entries, as long as the longer window: it over-counts, never under-counts. What
   * does not parse is read again (then the file's last readable window is used).
   */
  private write(entries: ReadonlyArray<[number, 0 | 1]>): void {
    if (this.fd === undefined) return;
    let text = `[${entries.map(([t, done]) => `[${t},${done}]`).join(',')}]`;
    if (text.length < this.size) text = text.padEnd(this.size);
    else this.size = text.length;
    fs.writeSync(this.fd, text, 0);
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
    if (this.fd === undefined) return;
    const last = this.entries
      .filter((e) => !e.done || e.t > now - this.windowMs)
      .map((e): [number, 0 | 1] => [e.done ? Math.min(e.t, now) : now, 1]);
    try {
      if (last.length) this.write(last);
      fs.closeSync(this.fd);
      this.fd = undefined;
      if (last.length) return;
      fs.rmSync(this.file, { force: true });
      fs.rmdirSync(this.dir); // only when no other process uses it
      fs.rmdirSync(path.dirname(this.dir));
    } catch {
      // another process still paces here
    }
  }
}

/** A window as written (`[[time, done], …]`, maybe padded), or undefined when it does not parse as one. */
function parseWindow(text: string): Array<[number, 0 | 1]> | undefined {
  try {
    const entries: unknown = JSON.parse(text);
    return Array.isArray(entries) ? (entries as Array<[number, 0 | 1]>) : undefined;
  } catch {
    return undefined;
  }
}
