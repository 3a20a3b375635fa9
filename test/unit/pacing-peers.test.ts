import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestLane } from '../../src/kit/lane';
import { FilePacingPeers, machinePacingDir } from '../../src/kit/pacing-peers';
import { VirtualClock } from './virtual-clock';

const roots: string[] = [];
function scopeDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pacing-peers-'));
  roots.push(root);
  return machinePacingDir('https://studio.example', root);
}
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

const limit = { count: 10, windowMs: 1_000 };
function lane(clock: VirtualClock, dir: string, sent: number[]): { lane: RequestLane; call: () => Promise<void> } {
  const l = new RequestLane({
    name: 'cs',
    concurrency: 4,
    rateLimit: limit,
    clock,
    peers: new FilePacingPeers(dir, limit.windowMs),
  });
  return { lane: l, call: () => l.send('call', async () => void sent.push(clock.now())) };
}
/** The most sends within any window of `windowMs`. */
function busiest(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.max(...sorted.map((t, i) => sorted.filter((u, j) => j >= i && u < t + windowMs).length));
}

const DEAD_PID = 999_999_999; // above any pid_max

describe('machine-local pacing (FilePacingPeers)', () => {
  it('two processes on one limit stay within it together, each pacing to the same limit; each leaves its last window', async () => {
    const clock = new VirtualClock(Date.now());
    const dir = scopeDir();
    const sent: number[] = [];
    const a = lane(clock, dir, sent);
    const b = lane(clock, dir, sent);
    for (let i = 0; i < 40; i++) await (i % 2 ? a : b).call();
    expect(sent).toHaveLength(40);
    // Alone each would send 10 per window; together they keep one slot in reserve for the other.
    expect(busiest(sent, limit.windowMs)).toBeLessThanOrEqual(limit.count);
    expect(busiest(sent, limit.windowMs)).toBeGreaterThanOrEqual(limit.count - 1);
    a.lane.close();
    b.lane.close();
    // The service still counts their last calls: what is in the window stays for the next process to see.
    const left = fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<[number, number]>);
    expect(left).toHaveLength(2);
    expect(left.flat().filter(([t]) => t > clock.now() - limit.windowMs)).toHaveLength(left.flat().length);
  });

  it('waits for a live peer’s answered requests to leave the window', async () => {
    const clock = new VirtualClock(Date.now());
    const dir = scopeDir();
    fs.mkdirSync(dir, { recursive: true });
    // This very process is alive: a file under its pid with another suffix stands for a peer.
    fs.writeFileSync(
      path.join(dir, `${process.pid}-0badc0de.json`),
      JSON.stringify(Array.from({ length: 9 }, () => [clock.now() - 400, 1])),
    );
    const sent: number[] = [];
    const start = clock.now();
    const { lane: l, call } = lane(clock, dir, sent);
    expect(l.room()).toMatchObject({ free: 0 }); // 9 of theirs + 1 slot they may be taking
    await call();
    expect(sent).toEqual([start + 600 + 1]);
    l.close();
  });

  it('counts what a process that has ended sent last until it leaves the window, then removes its file', async () => {
    const clock = new VirtualClock(Date.now());
    const dir = scopeDir();
    fs.mkdirSync(dir, { recursive: true });
    const ended = path.join(dir, `${DEAD_PID}-0badc0de.json`);
    fs.writeFileSync(ended, JSON.stringify(Array.from({ length: 10 }, () => [clock.now() - 400, 1])));
    const sent: number[] = [];
    const start = clock.now();
    const { lane: l, call } = lane(clock, dir, sent);
    expect(l.room()).toMatchObject({ free: 0 }); // its 10, but no reserve: it sends nothing more
    await call();
    expect(sent).toEqual([start + 600 + 1]);
    for (let i = 0; i < 1_000 && fs.existsSync(ended); i++) await new Promise((r) => setTimeout(r, 10)); // removed in the background (a loaded machine may take a while)
    expect(fs.existsSync(ended)).toBe(false);
    l.close();
  });

  it('dates the requests of a process killed mid-flight at its last write', async () => {
    const clock = new VirtualClock(Date.now());
    const dir = scopeDir();
    fs.mkdirSync(dir, { recursive: true });
    const killed = path.join(dir, `${DEAD_PID}-0badf00d.json`);
    fs.writeFileSync(killed, JSON.stringify(Array.from({ length: 10 }, () => [clock.now() - 5_000, 0])));
    const written = fs.statSync(killed).mtimeMs;
    const sent: number[] = [];
    const { lane: l, call } = lane(clock, dir, sent);
    await call();
    expect(sent[0]).toBeGreaterThan(written + limit.windowMs); // not never, not at once
    l.close();
  });

  it('rewrites its window in place, padded to the longest so far; a peer window that does not parse counts as last read', async () => {
    const clock = new VirtualClock(Date.now());
    const dir = scopeDir();
    const sent: number[] = [];
    const a = lane(clock, dir, sent);
    for (let i = 0; i < 6; i++) await a.call();
    clock.t += limit.windowMs + 1;
    await a.call(); // the window shrinks to one entry: the file keeps its length, padded
    const [own] = fs.readdirSync(dir);
    const text = fs.readFileSync(path.join(dir, own), 'utf8');
    expect(JSON.parse(text)).toHaveLength(1);
    expect(text.trimEnd().length).toBeLessThan(text.length);

    // A live peer's window, read once whole, then caught half written.
    const peer = path.join(dir, `${process.pid}-0badc0de.json`);
    fs.writeFileSync(peer, JSON.stringify(Array.from({ length: 8 }, () => [clock.now(), 1])));
    const watcher = new FilePacingPeers(dir, limit.windowMs);
    expect(watcher.others(clock.now(), limit.windowMs)).toMatchObject({ counted: 9, processes: 2 });
    fs.writeFileSync(peer, `${JSON.stringify(Array.from({ length: 8 }, () => [clock.now(), 1]))}]`);
    expect(watcher.others(clock.now(), limit.windowMs)).toMatchObject({ counted: 9, processes: 2 });
    a.lane.close();
  });

  it('paces alone when the folder cannot be used', async () => {
    const clock = new VirtualClock(Date.now());
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pacing-peers-'));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'playwright-tms-reporter-pacing'), 'a file where the folder would be');
    const sent: number[] = [];
    const l = new RequestLane({
      name: 'cs',
      concurrency: 1,
      rateLimit: limit,
      clock,
      peers: new FilePacingPeers(machinePacingDir('x', root), limit.windowMs),
    });
    for (let i = 0; i < 12; i++) await l.send('call', async () => void sent.push(clock.now()));
    expect(sent).toHaveLength(12);
    expect(busiest(sent, limit.windowMs)).toBe(10);
    l.close();
  });
});
