import type { NetworkError } from '../http/errors';
import { realClock, seconds, type Clock } from './clock';

/**
 * How long a service that does not answer at all (connection refused, reset before any answer, no byte
 * within the request timeout, host not found) is tried before it is given up for the run: at most `tries`
 * attempts of one operation, `delaysMs` apart, and no new attempt once `withinMs` have passed since the
 * first of them failed. A refused connection is given up after ≈ 4 s (3 tries); a service that accepts
 * connections and never answers after two request timeouts (2 × 30 s by default, see `requestTimeout`).
 */
export const UNREACHABLE = { tries: 3, withinMs: 15_000, delaysMs: [1_000, 3_000] } as const;

/**
 * While the tests still run, a service given up is tried again after this long (the results go at the end
 * anyway); once the end of the run has begun, it is not tried again in this run.
 */
export const UNREACHABLE_COOL_DOWN_MS = 30_000;

/** The wait before the next try after `tries` unreachable ones in a row (1-based). */
export function unreachableDelay(tries: number): number {
  return UNREACHABLE.delaysMs[Math.min(tries, UNREACHABLE.delaysMs.length) - 1];
}

/**
 * A service given up for this run: it gave no answer `tries` times in a row. Names the service, the cause
 * and where, e.g. "Zephyr unreachable: connection refused at 127.0.0.1:4010 (3 tries over 4 s)".
 */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
  readonly service: string;
  /** "connection refused at 127.0.0.1:4010". */
  readonly reason: string;
  constructor(last: NetworkError, tries: number, spanMs: number) {
    const reason = `${last.what}${last.host ? ` at ${last.host}` : ''}`;
    super(`${last.service} unreachable: ${reason} (${tries} ${tries === 1 ? 'try' : 'tries'} over ${seconds(spanMs)})`, { cause: last });
    this.service = last.service;
    this.reason = reason;
  }
}

/** One operation's unreachable tries in a row (an answer of any kind, even an error, ends the streak). */
export class UnreachableStreak {
  private count = 0;
  private firstAt = 0;

  get tries(): number {
    return this.count;
  }

  /** Records one attempt that got no answer; returns the error to give up with, or undefined to try again. */
  add(error: NetworkError, startedAt: number, now: number): UnreachableError | undefined {
    if (this.count++ === 0) this.firstAt = startedAt;
    // Measured from the first failed attempt's start: a hanging service's first try already took a timeout.
    const span = now - this.firstAt;
    const failedFor = this.count > 1 ? span : 0;
    if (this.count >= UNREACHABLE.tries || failedFor >= UNREACHABLE.withinMs) return new UnreachableError(error, this.count, span);
    return undefined;
  }

  answered(): void {
    this.count = 0;
  }
}

/**
 * Whether one service is given up for this run, shared by its lane (every request asks first), its waits
 * and its session (which names the cause and stops sending). `endBegan`: whether the end of the run (the
 * publishTimeout) has begun.
 */
export class Reachability {
  private lost?: { error: UnreachableError; at: number; duringEnd: boolean };
  /** Since when the service has answered nothing, and the last failure (any answer clears it). */
  private silent?: { since: number; last: NetworkError };

  constructor(
    private readonly endBegan: () => boolean = () => false,
    private readonly clock: Clock = realClock,
    /** The waits between unreachable tries (UNREACHABLE.delaysMs; the integration suite's knob shortens them). */
    private readonly delaysMs: readonly number[] = UNREACHABLE.delaysMs,
  ) {}

  /** The wait before the next try after `tries` unreachable ones in a row (1-based), for this service. */
  delayAfter(tries: number): number {
    return this.delaysMs[Math.min(tries, this.delaysMs.length) - 1];
  }

  /** The service gave no answer to one operation's last tries: later requests fail at once with `error`. */
  giveUp(error: UnreachableError): UnreachableError {
    if (!this.lost || this.lost.error !== error) this.lost = { error, at: this.clock.now(), duringEnd: this.endBegan() };
    return error;
  }

  /** Throws the service's UnreachableError while it is given up (see UNREACHABLE_COOL_DOWN_MS). */
  assertReachable(): void {
    const lost = this.lost;
    if (!lost) return;
    if (lost.duringEnd) throw lost.error;
    // Given up while the tests ran: the end tries once more (the service may be back); so does the run after a pause.
    if (this.endBegan() || this.clock.now() - lost.at >= UNREACHABLE_COOL_DOWN_MS) this.lost = undefined;
    else throw lost.error;
  }

  /** A request got no answer (the lane tells every one): the progress line names it while it lasts. */
  noAnswer(error: NetworkError): void {
    this.silent = { since: this.silent?.since ?? this.clock.now(), last: error };
  }

  /** A request got an answer (any status): the service is there. */
  answered(): void {
    this.silent = undefined;
  }

  /**
   * What a progress line says of the service: given up and why, or answering nothing for how long and why
   * (e.g. "no answer for 12 s: connection refused at 127.0.0.1:4010"); undefined while it answers.
   */
  describe(): string | undefined {
    if (this.lost) return `${this.lost.error.message}; the rest stays in the outbox`;
    const s = this.silent;
    if (!s) return undefined;
    return `no answer for ${seconds(this.clock.now() - s.since)}: ${s.last.what}${s.last.host ? ` at ${s.last.host}` : ''}`;
  }

  /** The service given up, if it is (the session's summary and progress line name the cause). */
  get down(): UnreachableError | undefined {
    return this.lost?.error;
  }
}
