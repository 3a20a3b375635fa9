import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireJournalLock,
  acquireJournalLockWatching,
  isPidAlive,
  type JournalLock,
  type JournalLockOptions,
} from '../../src/kit/journal-lock';

const HOST = 'ci-runner-1';
const T0 = Date.parse('2030-01-01T12:00:00Z');
const MIN = 60_000;

let dir: string;
let journal: string;
let lock: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-journal-lock-'));
  journal = path.join(dir, 'run-1.jsonl');
  lock = `${journal}.lock`;
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Options of a process `pid` on HOST at time `at`, for which `alive` pids are running. */
const as = (pid: number, at = T0, alive: number[] = [], extra: JournalLockOptions = {}): JournalLockOptions => ({
  pid,
  hostname: HOST,
  now: () => at,
  isAlive: (p) => alive.includes(p),
  ...extra,
});
const writeLock = (owner: object | string) => fs.writeFileSync(lock, typeof owner === 'string' ? owner : JSON.stringify(owner));
const owner = (pid: number, startedAt = T0, hostname = HOST) => ({ pid, hostname, startedAt: new Date(startedAt).toISOString() });
const held = (l: JournalLock) => (l.acquired ? l : expect.fail(`expected the lock, got ${JSON.stringify(l)}`));
const asideFiles = () => fs.readdirSync(dir).filter((f) => f.endsWith('.stale'));

describe('acquireJournalLock', () => {
  it('takes a free lock with pid, hostname and start time, and release removes it', () => {
    const l = held(acquireJournalLock(journal, as(100)));
    expect(l.tookOver).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toEqual({ pid: 100, hostname: HOST, startedAt: '2030-01-01T12:00:00.000Z' });
    // Held by this very process: not taken again, not even by a namesake of the same pid.
    expect(acquireJournalLock(journal, as(100, T0 + 1_000))).toEqual({
      acquired: false,
      file: lock,
      heldBy: { pid: 100, hostname: HOST, ageMs: 1_000 },
    });
    l.release();
    expect(fs.existsSync(lock)).toBe(false);
    const again = held(acquireJournalLock(journal, as(100)));
    l.release(); // a second release is a no-op: it must not drop the newer lock, nor forget that we hold it
    expect(acquireJournalLock(journal, as(100)).acquired).toBe(false);
    again.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a live lock and leaves it untouched', () => {
    writeLock(owner(200, T0 - 5 * MIN));
    const before = fs.readFileSync(lock, 'utf8');
    expect(acquireJournalLock(journal, as(100, T0, [200]))).toEqual({
      acquired: false,
      file: lock,
      heldBy: { pid: 200, hostname: HOST, ageMs: 5 * MIN },
    });
    expect(fs.readFileSync(lock, 'utf8')).toBe(before);
  });

  it('takes over a lock whose pid is not running on this host', () => {
    writeLock(owner(200, T0 - 2 * MIN));
    const l = held(acquireJournalLock(journal, as(100, T0, [])));
    expect(l.tookOver).toEqual({ pid: 200, hostname: HOST, ageMs: 2 * MIN, why: 'not running' });
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(100);
    expect(asideFiles()).toEqual([]);
  });

  it('takes over a lock without a sign of life for maxAgeMs even if its pid runs (default 5 min, configurable)', () => {
    writeLock(owner(200, T0 - 6 * MIN));
    expect(held(acquireJournalLock(journal, as(100, T0, [200]))).tookOver).toMatchObject({ pid: 200, ageMs: 6 * MIN, why: 'too old' });

    fs.rmSync(lock);
    writeLock(owner(200, T0 - 4 * MIN));
    expect(acquireJournalLock(journal, as(100, T0, [200])).acquired).toBe(false);
    expect(held(acquireJournalLock(journal, as(100, T0, [200], { maxAgeMs: 2 * MIN }))).tookOver?.why).toBe('too old');
  });

  it("a holder's heartbeat keeps its lock fresh however long it holds it", async () => {
    let holderNow = T0;
    const holder = held(acquireJournalLock(journal, { ...as(200), now: () => holderNow, heartbeatMs: 5 }));
    // An hour on, the holder still beats: its lock is young, not an hour old.
    holderNow = T0 + 60 * MIN;
    await vi.waitFor(() => expect(fs.statSync(lock).mtimeMs).toBe(T0 + 60 * MIN), { timeout: 10_000 });
    expect(acquireJournalLock(journal, as(100, T0 + 62 * MIN, [200]))).toMatchObject({ acquired: false, heldBy: { ageMs: 2 * MIN } });
    holder.release();
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("judges another host's lock by its age only (its pid means nothing here)", () => {
    writeLock(owner(200, T0 - MIN, 'other-host'));
    const asked: number[] = [];
    const refused = acquireJournalLock(journal, { ...as(100), isAlive: (p) => (asked.push(p), false) });
    expect(refused).toMatchObject({ acquired: false, heldBy: { pid: 200, hostname: 'other-host' } });
    expect(asked).toEqual([]);
    expect(held(acquireJournalLock(journal, as(100, T0 + 30 * MIN))).tookOver?.why).toBe('too old');
  });

  it("another host's lock nobody touches through a heartbeat window (an outbox copied from a killed run) is taken over by a replay", async () => {
    // Downloaded as a CI artifact: a fresh mtime, the killed run's pid and host.
    writeLock(owner(200, T0 - MIN, 'other-host'));
    const watched: number[] = [];
    const sleeps: number[] = [];
    const l = held(
      await acquireJournalLockWatching(journal, {
        ...as(100, T0 + MIN),
        heartbeatMs: 30_000,
        sleep: async (ms) => void sleeps.push(ms),
        onWatch: (_holder, ms) => watched.push(ms),
      }),
    );
    expect(watched).toEqual([65_000]);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(65_000);
    expect(l.tookOver).toMatchObject({ pid: 200, hostname: 'other-host', why: 'no sign of life' });
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(100);
  });

  it("another host's lock touched during the watch is a live holder's: refused", async () => {
    writeLock(owner(200, T0 - MIN, 'other-host'));
    let beats = 0;
    const refused = await acquireJournalLockWatching(journal, {
      ...as(100, T0 + MIN),
      // The holder on the other host beats while we watch (its touch moves the mtime).
      sleep: async () => {
        beats++;
        fs.utimesSync(lock, (T0 + beats * 1000) / 1000, (T0 + beats * 1000) / 1000);
      },
    });
    expect(refused).toMatchObject({ acquired: false, heldBy: { pid: 200, hostname: 'other-host' } });
    expect(beats).toBe(1);
  });

  it('takes over a lock naming our own pid and host that this process does not hold (restarted container, pid 1)', () => {
    writeLock(owner(1, T0 - MIN));
    expect(held(acquireJournalLock(journal, as(1, T0, [1]))).tookOver).toMatchObject({ pid: 1, why: 'not running' });
  });

  it('refuses an empty or unreadable lock within the grace (it may be being written), takes it over after', () => {
    for (const text of ['', '{"pid":', '{"pid":0,"hostname":"ci-runner-1","startedAt":"2030-01-01T12:00:00Z"}']) {
      writeLock(text);
      const mtime = fs.statSync(lock).mtimeMs;
      expect(acquireJournalLock(journal, as(100, mtime + 2_000))).toMatchObject({ acquired: false, heldBy: { ageMs: 2_000 } });
      expect(fs.readFileSync(lock, 'utf8')).toBe(text);
      const l = held(acquireJournalLock(journal, as(100, mtime + 11_000)));
      expect(l.tookOver).toEqual({ ageMs: 11_000, why: 'unreadable' });
      l.release();
    }
  });

  it('release removes only its own lock', () => {
    const l = held(acquireJournalLock(journal, as(100)));
    // Meanwhile judged stale and taken over by another process.
    fs.rmSync(lock);
    writeLock(owner(300));
    l.release();
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(300);
    expect(asideFiles()).toEqual([]);
  });

  it('two take-overs of one stale lock, interleaved at the worst moment: exactly one wins', () => {
    writeLock(owner(200, T0 - MIN));
    let a: JournalLock | undefined;
    // B has read the stale lock and is checking its pid when A takes it over completely.
    const b = acquireJournalLock(journal, {
      ...as(102),
      isAlive: (pid) => {
        if (pid === 200 && !a) a = acquireJournalLock(journal, as(101, T0, []));
        return pid === 101;
      },
    });
    expect(held(a!).tookOver?.pid).toBe(200);
    // B then moves A's fresh lock aside, sees it is not the file it judged, and puts it back.
    expect(b).toMatchObject({ acquired: false, heldBy: { pid: 101 } });
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(101);
    expect(asideFiles()).toEqual([]);
  });

  it("a lock replaced while it is being read is judged by one file: never its old age with its successor's bytes", () => {
    // Seen once in a full suite: two of six processes won one stale lock. A reader took the stale lock's stat, then
    // read the bytes of the lock that replaced it, still empty (its taker had created it and not yet written):
    // "unreadable and 30 minutes old", so stale; the re-check before removing found the same empty bytes and the
    // same inode (ext4 hands a freed inode to the next file at once), and removed the new holder's lock.
    writeLock(owner(process.pid, Date.now() - 30 * MIN, os.hostname()));
    const lastBeat = (Date.now() - 30 * MIN) / 1000;
    fs.utimesSync(lock, lastBeat, lastBeat);
    const cjsFs = createRequire(__filename)('node:fs') as typeof fs;
    const realRead = cjsFs.readFileSync;
    let takerFd: number | undefined;
    // The first read of the lock: right before it, another process takes the stale lock over (removes it, creates
    // its own) and is paused between its create and its write.
    cjsFs.readFileSync = function (this: unknown, ...args: unknown[]) {
      if (takerFd === undefined) {
        fs.rmSync(lock);
        takerFd = fs.openSync(lock, 'wx');
      }
      return (realRead as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof fs.readFileSync;
    syncBuiltinESMExports();
    let reader: JournalLock;
    try {
      reader = acquireJournalLock(journal);
    } finally {
      cjsFs.readFileSync = realRead;
      syncBuiltinESMExports();
    }
    expect(takerFd).toBeDefined();
    fs.writeSync(takerFd!, JSON.stringify(owner(process.pid, Date.now(), os.hostname())));
    fs.closeSync(takerFd!);
    if (reader.acquired) reader.release();
    expect(reader).toMatchObject({ acquired: false });
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('separate processes taking over one stale lock at the same instant: exactly one wins', async () => {
    // The module has only node: imports, so a plain transpile runs it in a child process.
    const src = fs.readFileSync(path.join(__dirname, '../../src/kit/journal-lock.ts'), 'utf8');
    const js = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText;
    const mod = path.join(dir, 'journal-lock.cjs');
    fs.writeFileSync(mod, js);
    writeLock(owner(process.pid, Date.now() - 30 * MIN, os.hostname())); // too old: stale for everyone
    const lastBeat = (Date.now() - 30 * MIN) / 1000;
    fs.utimesSync(lock, lastBeat, lastBeat);
    const startAt = Date.now() + 800;
    const child = `
      const { acquireJournalLock } = require(${JSON.stringify(mod)});
      setTimeout(() => {
        while (Date.now() < ${startAt}) {}
        const l = acquireJournalLock(${JSON.stringify(journal)});
        process.stdout.write(JSON.stringify({ acquired: l.acquired, pid: process.pid }) + '\\n');
        // Hold it until every process has tried: a winner that exits would leave a dead pid behind.
        process.stdin.on('end', () => process.exit(0)).resume();
      }, Math.max(0, ${startAt} - Date.now() - 20));`;
    const procs = Array.from({ length: 6 }, () => spawn(process.execPath, ['-e', child], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const results = await Promise.all(
      procs.map(
        (p) =>
          new Promise<{ acquired: boolean; pid: number }>((resolve) =>
            p.stdout.once('data', (d: Buffer) => resolve(JSON.parse(String(d)))),
          ),
      ),
    );
    const winners = results.filter((r) => r.acquired);
    expect(winners).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(winners[0].pid);
    expect(asideFiles()).toEqual([]);
    await Promise.all(procs.map((p) => new Promise((resolve) => (p.on('exit', resolve), p.stdin.end()))));
  });
});

describe('isPidAlive', () => {
  it('is true for a running process and false for one that has exited', () => {
    expect(isPidAlive(process.pid)).toBe(true);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(isPidAlive(gone)).toBe(false);
  });

  it("is true for someone else's process (EPERM)", () => {
    if (process.platform === 'win32') return;
    if (process.getuid?.() !== 0) {
      expect(isPidAlive(1)).toBe(true);
      return;
    }
    // As root every signal is allowed: ask from an unprivileged child, where pid 1 answers EPERM.
    const probe = `const f = (${isPidAlive.toString()}); try { process.kill(1, 0); } catch (e) { process.stdout.write(e.code + ' '); } process.stdout.write(String(f(1)));`;
    const out = spawnSync(process.execPath, ['-e', probe], { uid: 65534, gid: 65534, encoding: 'utf8' });
    expect(out.stdout).toBe('EPERM true');
  });
});
