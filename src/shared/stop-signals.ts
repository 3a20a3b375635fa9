/**
 * Ctrl+C (SIGINT) or a CI cancel (SIGTERM) while the end of the run is sending. Playwright no longer
 * listens then, so the signal would end its process at once: nothing said, the journal left locked. While
 * listening, the first signal stops the sending instead (what is left stays in the outbox, and the summary
 * says so); the listeners go with it, so a second signal ends the process as before.
 */
export class StopSignals {
  private readonly controller = new AbortController();
  /** Aborted by the first signal, its reason the signal's name. */
  readonly signal: AbortSignal = this.controller.signal;
  private readonly signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

  constructor(private readonly onStop: (signal: NodeJS.Signals) => void) {}

  private readonly handler = (signal: NodeJS.Signals): void => {
    this.dispose();
    this.onStop(signal);
    this.controller.abort(signal);
  };

  listen(): void {
    for (const s of this.signals) process.on(s, this.handler);
  }

  dispose(): void {
    for (const s of this.signals) process.off(s, this.handler);
  }
}
