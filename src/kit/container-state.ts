import type { BeginResult, ContainerInfo } from './target';

/**
 * The part every target shares: the container found or created by `begin`, and the background work
 * begun then (registering known keys, waiting for generated tests) that `publish` waits for, and that
 * `begin` hands the engine (BeginResult.preparation), since Playwright does not wait for promises a reporter forgets.
 */
export class ContainerState {
  private container?: ContainerInfo;
  private background: Promise<void> = Promise.resolve();

  /** `what` names the container in the error when it is used before `begin` succeeded. */
  constructor(private readonly what: string) {}

  set(container: ContainerInfo): ContainerInfo {
    this.container = container;
    return container;
  }

  /** The container when `begin` has set it, else undefined (for what is optional, like a link). */
  peek(): ContainerInfo | undefined {
    return this.container;
  }

  require(): ContainerInfo {
    if (!this.container) throw new Error(`${this.what} is not ready (the preflight failed)`);
    return this.container;
  }

  /**
   * Starts preparation in the background. A failure here is not final (publish repeats whatever is
   * still missing), so it is swallowed rather than left unhandled.
   */
  prepareInBackground(work: () => Promise<void>): void {
    this.background = work().catch(() => undefined);
  }

  /** Resolves when the background preparation has settled (never rejects). */
  preparation(): Promise<void> {
    return this.background;
  }

  /** What `begin` returns: the container, and the preparation it started. */
  begun(): BeginResult {
    return { ...this.require(), preparation: this.background };
  }
}
