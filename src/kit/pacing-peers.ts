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
  close(): void;
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
 * never sees half of one). A file whose process is gone is removed by the next reader. Pacing is a
 * courtesy to the service, never a reason to fail: if the folder cannot be used, the lane paces alone.
 */
export class FilePacingPeers implements PacingPeers {
  private readonly file: string;
  private readonly own: string;
  /** Set once the folder cannot be used, and at close. */
  private off = false;
  private readonly onExit = () => fs.rmSync(this.file, { force: true });
  private written = false;

  constructor(private readonly dir: string) {
    this.own = `${process.pid}-${randomBytes(4).toString('hex')}.json`;
    this.file = path.join(dir, this.own);
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch {
      this.off = true;
    }
  }

  others(now: number, windowMs: number): PeerWindows {
    const result: PeerWindows = { counted: 0, processes: 0 };
    if (this.off) return result;
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return result;
    }
    for (const name of names) {
      const pid = Number(/^(\d+)-[0-9a-f]+\.json$/.exec(name)?.[1]);
      if (name === this.own || !pid) continue;
      if (!alive(pid)) {
        fs.rm(path.join(this.dir, name), { force: true }, () => undefined);
        continue;
      }
      let entries: Array<[number, 0 | 1]>;
      try {
        entries = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as Array<[number, 0 | 1]>;
      } catch {
        continue; // removed meanwhile
      }
      result.processes++;
      for (const [t, done] of entries) {
        if (done && t <= now - windowMs) continue;
        result.counted++;
        if (done) result.nextExpiry = Math.min(result.nextExpiry ?? Infinity, t + windowMs);
      }
    }
    return result;
  }

  publish(entries: readonly PacingEntry[]): void {
    if (this.off) return;
    const temp = `${this.file}.${randomBytes(3).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(temp, JSON.stringify(entries.map((e) => [e.t, e.done ? 1 : 0])));
      fs.renameSync(temp, this.file);
      if (!this.written) process.once('exit', this.onExit); // a run cut short leaves no window behind
      this.written = true;
    } catch {
      this.off = true;
      fs.rm(temp, { force: true }, () => undefined);
    }
  }

  close(): void {
    this.off = true;
    process.removeListener('exit', this.onExit);
    try {
      fs.rmSync(this.file, { force: true });
      fs.rmdirSync(this.dir); // only when no other process uses it
      fs.rmdirSync(path.dirname(this.dir));
    } catch {
      // another process still paces here
    }
  }
}
