import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';

/** What a lock file holds: who took it, where, and when (ISO time). */
export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

export interface JournalLockOptions {
  /**
   * A lock without a sign of life for this long is stale whoever holds it (a hung or unreachable holder).
   * Its holder touches it every `heartbeatMs`, so however long a run or replay lasts it stays fresh.
   * Default 5 min (ten missed heartbeats).
   */
  maxAgeMs?: number;
  /** How often the holder touches its lock (mtime = its last sign of life). Default 30 s. */
  heartbeatMs?: number;
  /** An empty or unreadable lock younger than this may be being written right now: left alone. Default 10 s. */
  graceMs?: number;
  now?: () => number;
  /** Whether a pid runs on this host (default: `isPidAlive`). Not asked about other hosts' locks. */
  isAlive?: (pid: number) => boolean;
  hostname?: string;
  pid?: number;
  /**
   * A lock from another host seen exactly so (same bytes, same mtime) through a whole heartbeat window:
   * nobody touches it, so nobody holds it (see acquireJournalLockWatching).
   */
  quiet?: { text: string; mtimeMs: number };
}

export type StaleWhy = 'not running' | 'too old' | 'unreadable' | 'no sign of life';

/** Who holds (or held) a lock; `pid`/`hostname` are absent when the file was unreadable. */
export interface LockHolder {
  pid?: number;
  hostname?: string;
  ageMs: number;
}

export type JournalLock =
  | {
      acquired: true;
      file: string;
      /** Set when a stale lock was taken over: worth one line to the user. */
      tookOver?: LockHolder & { why: StaleWhy };
      /** Removes the lock if it is still ours (idempotent). */
      release(): void;
    }
  | { acquired: false; file: string; heldBy: LockHolder };

/** Locks this process holds now: a lock naming our own pid and host that is not in here is a dead namesake's. */
const heldHere = new Set<string>();
/** Their releases: a lock still held when the process exits goes with it (a run's journal kept for replay). */
const releases = new Map<string, () => void>();
let exitHooked = false;

/** `process.kill(pid, 0)`: ESRCH = no such process; EPERM (someone else's process) and anything else count as alive. */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Takes `<journalFile>.lock`, or says who holds it: a run holds its journal's lock while it writes, a
 * replay while it sends. A lock left by a killed process (its pid gone on this host, or no heartbeat for
 * `maxAgeMs`, or unreadable past a short grace) is taken over, race-safely: only the
 * process holding `<lock>.takeover` (an exclusive create) may remove a lock, and only after reading it
 * again and finding the very bytes it judged stale; the new lock is then made by the same exclusive create
 * as always, so whoever gets there first wins and exactly one process holds the lock. (Moving the file
 * aside to inspect it, as before, left a moment with no lock at all, in which a third process could win
 * beside the taker.)
 */
export function acquireJournalLock(journalFile: string, o: JournalLockOptions = {}): JournalLock {
  const file = `${journalFile}.lock`;
  const now = o.now ?? Date.now;
  const me = { pid: o.pid ?? process.pid, hostname: o.hostname ?? os.hostname() };
  let tookOver: (LockHolder & { why: StaleWhy }) | undefined;
  let holder: LockHolder = { ageMs: 0 };
  // A few rounds: each lost race either shows a live lock (refused) or frees the way for the next try.
  for (let round = 0; round < 5; round++) {
    const content = JSON.stringify({ ...me, startedAt: new Date(now()).toISOString() } satisfies LockOwner);
    if (create(file, content)) {
      heldHere.add(file);
      // The sign of life: a touch, not a rewrite, so a lock taken over meanwhile is never overwritten.
      const heartbeat = setInterval(() => {
        const t = now() / 1000;
        try {
          fs.utimesSync(file, t, t);
        } catch {
          // Gone (taken over as stale, or the folder removed): the release below finds it not ours.
        }
      }, o.heartbeatMs ?? 30_000);
      heartbeat.unref();
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        heldHere.delete(file);
        releases.delete(file);
        // Ours still (nobody took it over as too old meanwhile): then it goes.
        if (read(file)?.text === content) fs.rmSync(file, { force: true });
      };
      releases.set(file, release);
      if (!exitHooked) {
        exitHooked = true;
        process.on('exit', () => {
          for (const r of [...releases.values()]) r();
        });
      }
      return { acquired: true, file, tookOver, release };
    }
    const seen = read(file);
    if (!seen) continue; // removed between our open and our read: try again
    const owner = parseOwner(seen.text);
    // Age since the last sign of life: the start, or the holder's latest heartbeat (the file's mtime).
    holder = owner
      ? { pid: owner.pid, hostname: owner.hostname, ageMs: Math.max(0, now() - Math.max(Date.parse(owner.startedAt), seen.stat.mtimeMs)) }
      : { ageMs: Math.max(0, now() - seen.stat.mtimeMs) };
    const why = staleness(file, owner, holder.ageMs, me, o, seen);
    if (!why) return { acquired: false, file, heldBy: holder };
    if (removeIfStill(file, seen, now, o.graceMs ?? 10_000)) tookOver = { ...holder, why };
  }
  return { acquired: false, file, heldBy: holder };
}

export interface WatchingLockOptions extends JournalLockOptions {
  /** How long to watch a lock from another host (default two heartbeats + 5 s), and how often to look (default 5 s). */
  watchMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told once, when the watch begins. */
  onWatch?: (holder: LockHolder, watchMs: number) => void;
}

/**
 * acquireJournalLock for replay. A lock held on another host may be a copy: an outbox a killed run left,
 * uploaded as a CI artifact and downloaded elsewhere (with a fresh mtime), whose holder will never touch it
 * again. Such a lock is watched for a heartbeat window (two heartbeats and a margin): one nobody touched
 * meanwhile has no holder and is taken over; one that changed is a live holder's (refused, as before).
 */
export async function acquireJournalLockWatching(journalFile: string, o: WatchingLockOptions = {}): Promise<JournalLock> {
  const first = acquireJournalLock(journalFile, o);
  if (first.acquired || !first.heldBy.hostname || first.heldBy.hostname === (o.hostname ?? os.hostname())) return first;
  const seen = read(first.file);
  if (!seen) return acquireJournalLock(journalFile, o);
  const watchMs = o.watchMs ?? 2 * (o.heartbeatMs ?? 30_000) + 5_000;
  const pollMs = Math.max(1, o.pollMs ?? 5_000);
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  o.onWatch?.(first.heldBy, watchMs);
  for (let waited = 0; waited < watchMs; waited += pollMs) {
    await sleep(pollMs);
    const now = read(first.file);
    // Released, or touched (a live holder), or replaced: decided as any lock is.
    if (!now || now.text !== seen.text || now.stat.mtimeMs !== seen.stat.mtimeMs) return acquireJournalLock(journalFile, o);
  }
  return acquireJournalLock(journalFile, { ...o, quiet: { text: seen.text, mtimeMs: seen.stat.mtimeMs } });
}

function staleness(
  file: string,
  owner: LockOwner | undefined,
  ageMs: number,
  me: { pid: number; hostname: string },
  o: JournalLockOptions,
  seen: { stat: fs.Stats; text: string },
): StaleWhy | undefined {
  if (!owner) return ageMs > (o.graceMs ?? 10_000) ? 'unreadable' : undefined;
  if (ageMs > (o.maxAgeMs ?? 5 * 60_000)) return 'too old';
  // A pid means nothing on another host (shared disk, or a copy): there only its heartbeat tells.
  if (owner.hostname !== me.hostname)
    return o.quiet && o.quiet.text === seen.text && o.quiet.mtimeMs === seen.stat.mtimeMs ? 'no sign of life' : undefined;
  // Our own pid but not our lock: a previous incarnation (containers restart as pid 1 on the same host).
  if (owner.pid === me.pid) return heldHere.has(file) ? undefined : 'not running';
  return (o.isAlive ?? isPidAlive)(owner.pid) ? undefined : 'not running';
}

/** Exclusive create + write; false if the file exists. A lock we could not fill in is not left behind. */
function create(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return true;
}

/**
 * A lock's stat and bytes, both from one open file. By path, the stat could be a removed lock's and the bytes its
 * successor's, still empty (ext4 gives the freed inode to the next file at once): "unreadable and old", so
 * stale, and the new holder's lock was removed — two holders.
 */
function read(file: string): { stat: fs.Stats; text: string } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return { stat: fs.fstatSync(fd), text: fs.readFileSync(fd, 'utf8') };
  } finally {
    fs.closeSync(fd);
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    // pid 0 or negative would make `process.kill(pid, 0)` probe a whole process group: not a lock's pid.
    const ok =
      Number.isSafeInteger(v.pid) &&
      v.pid! > 0 &&
      typeof v.hostname === 'string' &&
      typeof v.startedAt === 'string' &&
      !Number.isNaN(Date.parse(v.startedAt));
    return ok ? (v as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the stale lock `seen` while holding `<lock>.takeover`: true when it was removed (the caller then
 * races for the lock by exclusive create like everyone). Another taker at work: false, and the next round
 * finds its new lock (live: refused). A takeover file left by a taker that died is itself stale after `graceMs`.
 */
function removeIfStill(file: string, seen: { stat: fs.Stats; text: string }, now: () => number, graceMs: number): boolean {
  const mutex = `${file}.takeover`;
  const token = `${process.pid}-${randomBytes(6).toString('hex')}`;
  if (!create(mutex, token)) {
    const other = read(mutex);
    if (other && now() - other.stat.mtimeMs > graceMs && read(mutex)?.text === other.text) fs.rmSync(mutex, { force: true });
    return false;
  }
  try {
    // Only a takeover holder removes a lock, so what is read here cannot change before the removal.
    const again = read(file);
    if (!again || again.text !== seen.text || again.stat.ino !== seen.stat.ino) return false;
    fs.rmSync(file, { force: true });
    return true;
  } finally {
    if (read(mutex)?.text === token) fs.rmSync(mutex, { force: true });
  }
}
