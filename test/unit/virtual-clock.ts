import type { Clock } from '../../src/kit/wait';

/**
 * A clock for tests: `sleep` advances time at once and records the delay, so waits run instantly and
 * their exact delay sequence can be asserted. `hold()` makes the next sleeps hang (until `wake()`), to
 * test what happens *during* a sleep (abort).
 */
export class VirtualClock implements Clock {
  readonly sleeps: number[] = [];
  private held: Array<() => void> | undefined;

  constructor(public t = 0) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    if (this.held) return new Promise<void>((resolve) => this.held!.push(() => ((this.t += ms), resolve())));
    this.t += ms;
    return Promise.resolve();
  }

  hold(): void {
    this.held = [];
  }

  wake(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const w of waiting) w();
  }
}
