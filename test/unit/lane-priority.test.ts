import { describe, expect, it } from 'vitest';
import { RequestLane, type CallPriority } from '../../src/kit/lane';
import { HttpError } from '../../src/http/errors';
import { Deadline, DeadlineError } from '../../src/kit/deadline';

/** A clock whose sleeps end only when the test moves it: what goes while a call waits is seen, not inferred. */
function heldClock() {
  let now = 0;
  const sleeping: Array<{ until: number; wake: () => void }> = [];
  return {
    now: () => now,
    // A signal (a deadline set meanwhile) ends a sleep early, as the real clock's does.
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((wake) => {
        sleeping.push({ until: now + ms, wake });
        signal?.addEventListener('abort', () => wake(), { once: true });
      }),
    async advance(ms: number) {
      now += ms;
      for (const s of sleeping.filter((s) => s.until <= now)) {
        sleeping.splice(sleeping.indexOf(s), 1);
        s.wake();
      }
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    },
  };
}

describe('RequestLane: calls by worth (statuses, then failure text, then files)', () => {
  it('under pacing, a status call asked for after queued evidence goes first, then text, then files, each in the order asked', async () => {
    const c = heldClock();
    const lane = new RequestLane({ name: 'z', concurrency: 4, rateLimit: { count: 2, windowMs: 1_000 }, clock: c });
    const sent: string[] = [];
    const call = (name: string, priority?: CallPriority) => lane.send(name, async () => void sent.push(name), priority);
    const all = [call('status 1'), call('status 2'), call('file 1', 'file'), call('file 2', 'file'), call('text 1', 'text')];
    await c.advance(0);
    expect(sent).toEqual(['status 1', 'status 2']); // the window is full
    expect(lane.backlog('status')).toBe(0);
    expect(lane.backlog('text')).toBe(1);
    expect(lane.backlog('file')).toBe(3);
    // Asked for while 'text 1' is first and waits for the window: it is passed.
    all.push(call('status 3'));
    await c.advance(0);
    expect(lane.backlog('status')).toBe(1);
    await c.advance(1_001);
    expect(sent).toEqual(['status 1', 'status 2', 'status 3', 'text 1']);
    all.push(call('text 2', 'text'));
    await c.advance(1_001);
    await c.advance(1_001);
    await Promise.all(all);
    expect(sent).toEqual(['status 1', 'status 2', 'status 3', 'text 1', 'text 2', 'file 1', 'file 2']);
  });

  it('a label decides the worth when the call does not (LaneOptions.priorityOf); unknown labels are statuses', async () => {
    const c = heldClock();
    const priorityOf = (label: string): CallPriority => (label.startsWith('attachment') ? 'file' : label === 'comment' ? 'text' : 'status');
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, clock: c, priorityOf });
    const sent: string[] = [];
    let answer!: () => void;
    const first = lane.send('first', () => new Promise<void>((r) => (answer = r)));
    const rest = ['attachment/create', 'comment', 'bulk'].map((label) => lane.send(label, async () => void sent.push(label)));
    // Concurrency, not pacing, holds them: the slot the first call frees goes by worth too.
    await c.advance(0);
    expect(sent).toEqual([]);
    answer();
    await Promise.all([first, ...rest]);
    expect(sent).toEqual(['bulk', 'comment', 'attachment/create']);
  });

  it('a 429 pause holds every call; after it the most valuable goes first', async () => {
    const c = heldClock();
    const lane = new RequestLane({ name: 'z', concurrency: 4, rateLimit: null, clock: c });
    const sent: string[] = [];
    const refused = new HttpError('Zephyr', 'POST', '/x', 429, { 'retry-after': '5' }, '', 'HTTP 429');
    await lane.send('refused', () => Promise.reject(refused)).catch(() => undefined);
    const calls = [
      lane.send('file', async () => void sent.push('file'), 'file'),
      lane.send('status', async () => void sent.push('status')),
    ];
    await c.advance(0);
    expect(sent).toEqual([]);
    await c.advance(5_000);
    await Promise.all(calls);
    expect(sent).toEqual(['status', 'file']);
  });

  it('calls held by a 429 pause when the deadline is set: each fails at once with a DeadlineError, none is sent', async () => {
    const c = heldClock();
    const deadline = new Deadline(c);
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, clock: c, deadline });
    const refused = new HttpError('Zephyr', 'POST', '/x', 429, { 'retry-after': '60' }, '', 'HTTP 429');
    await lane.send('refused', () => Promise.reject(refused)).catch(() => undefined);
    const sent: string[] = [];
    const calls = ['status', 'file'].map((name) =>
      lane
        .send(name, async () => void sent.push(name))
        .then(
          () => 'sent',
          (error: unknown) => (error instanceof DeadlineError ? error.message : String(error)),
        ),
    );
    await c.advance(0);
    deadline.startIn(10_000); // the end of the run: 10 s left, the pause asks for 60
    await c.advance(0);
    expect(await Promise.all(calls)).toEqual([
      'z asked to wait: waiting 60 s would pass publishTimeout',
      'z asked to wait: waiting 60 s would pass publishTimeout',
    ]);
    expect(sent).toEqual([]);
    expect(lane.backlog('file')).toBe(0);
  });
});
