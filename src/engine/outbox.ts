import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash, hash, randomBytes } from 'node:crypto';
import { redact } from '../http/errors';
import type { Rewrite } from '../http/redirects';
import { acquireJournalLock } from '../kit/journal-lock';
import type { JournalTargetMeta } from '../kit/target';
import type { PlanItem, TargetId, TestRecord } from '../shared/model';
import { JOURNAL_VERSION, parseJournal, type DoneItem, type Journal, type JournalLine } from './journal-file';
import { isText, withExtension } from './uploads';

export { JOURNAL_VERSION, type DoneItem, type Journal } from './journal-file';

/** What the service holds for a key: its status, comment and step statuses (a change in either is a change). */
export function fingerprint(item: Pick<PlanItem, 'status' | 'comment' | 'steps'>): string {
  // Without steps the text hashed is the comment alone, as journals before step statuses have it.
  const text = item.steps?.length ? `${item.comment}\n${item.steps.join(',')}` : item.comment;
  return `${item.status}|${sha1Base64(text).slice(0, 12)}`;
}

/**
 * One-shot where Node has it (20.12+): a Hash object per call held ~10 MB of native memory until the GC
 * came round, at the end of a 10,000-result run (bench/README, figure 5).
 */
const sha1Base64 = (text: string): string =>
  typeof hash === 'function' ? hash('sha1', text, 'base64') : createHash('sha1').update(text).digest('base64');

/** What a journal kept for replay copies beside it: the files the records attach by path, redacted. */
type KeptEvidence = { records: readonly TestRecord[]; maxBytes: number; secrets: readonly string[] };

/**
 * Append-only journal of one run: every test record is written (synchronously, so a killed process
 * keeps what it had) before anything is sent, and each confirmed item is marked done afterwards.
 * A journal whose targets are all complete is deleted; what remains is what `replay` sends.
 */
export class Outbox {
  readonly file: string;
  private opened = false;
  /** Kept open while the run appends (one line per test): opening the file for each was most of the journal's cost. */
  private fd?: number;
  private readonly targets: Set<TargetId>;
  private readonly completed = new Set<TargetId>();
  /** The lock a run holds on the journal it writes, so that a replay started meanwhile leaves it alone. */
  private releaseLock?: () => void;
  /** Deleted as complete: nothing more is written (it would start a journal without its head). */
  private removed = false;
  /** Why the journal could not be written (a read-only folder, a file in its place): results still go out, none is kept. */
  unwritable?: string;

  constructor(
    readonly dir: string,
    /** What the journal's head says: each target's meta, and the CI build the run belongs to. */
    private readonly head: { targets: Record<TargetId, JournalTargetMeta>; build?: string },
    file?: string,
    /** Told once, when the journal cannot be written. */
    private readonly onUnwritable?: (why: string) => void,
  ) {
    this.file =
      file ??
      path.join(dir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(3).toString('hex')}.jsonl`);
    this.targets = new Set(Object.keys(head.targets));
    // An existing journal (replay) is appended to, not re-headed.
    this.opened = file !== undefined && fs.existsSync(file);
  }

  private write(lines: JournalLine[]): void {
    if (!lines.length || this.removed || this.unwritable) return;
    try {
      this.append(lines);
    } catch (error) {
      this.failed(error);
    }
  }

  /** The outbox is a safety copy: failing to write it must not stop the sending, only say that nothing is kept. */
  private failed(error: unknown): void {
    this.unwritable = (error as Error)?.message ?? String(error);
    this.onUnwritable?.(this.unwritable);
  }

  private append(lines: JournalLine[]): void {
    if (!this.opened) {
      fs.mkdirSync(this.dir, { recursive: true });
      // Held until the journal is finalized, or until this process exits when it is kept for replay.
      const lock = acquireJournalLock(this.file);
      if (lock.acquired) this.releaseLock = lock.release;
      const head: JournalLine = {
        t: 'meta',
        v: JOURNAL_VERSION,
        runId: path.basename(this.file, '.jsonl'),
        createdAt: new Date().toISOString(),
        targets: this.head.targets,
        ...(this.head.build ? { build: this.head.build } : {}),
      };
      this.fd = fs.openSync(this.file, 'a');
      fs.appendFileSync(this.fd, `${JSON.stringify(head)}\n`);
      this.opened = true;
    }
    this.fd ??= fs.openSync(this.file, 'a');
    // Written before anything is sent: in the file (the OS's cache) even if the process dies right after.
    fs.appendFileSync(this.fd, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  }

  /** Closes the file (the next write opens it again). */
  private release(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Writes an in-memory attachment next to the journal (the journal keeps paths, never bodies) and
   * returns its path; the folder goes with the journal once every target is complete.
   */
  saveBody(testId: string, index: number, name: string, contentType: string, body: Buffer): string | undefined {
    if (this.unwritable) return undefined;
    // One folder per attachment, so that the file keeps the attachment's own name (the name it is uploaded under).
    const dir = path.join(`${this.file.replace(/\.jsonl$/, '')}.files`, `${testId}-${index}`.replace(/[^\w.-]+/g, '_').slice(0, 80));
    try {
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, withExtension(name, contentType).slice(0, 120));
      fs.writeFileSync(file, body);
      return file;
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  appendTests(records: readonly TestRecord[]): void {
    this.write(records.map((rec) => ({ t: 'test', rec })));
  }

  container(target: TargetId, id: string, name: string): void {
    this.write([{ t: 'container', target, id, name }]);
  }

  done(target: TargetId, items: DoneItem[]): void {
    if (items.length) this.write([{ t: 'done', target, items }]);
  }

  /** Keys the service refused (no such Test issue / scenario), with why: replay does not send them. */
  refused(target: TargetId, items: Array<[key: string, reason: string]>): void {
    if (items.length) this.write([{ t: 'refused', target, items }]);
  }

  /** Settings of the run the service refused: a replay takes them from the config it is given, not from the journal. */
  unresolved(target: TargetId, settings: string[]): void {
    if (settings.length) this.write([{ t: 'unresolved', target, settings }]);
  }

  attached(target: TargetId, key: string, file: string): void {
    this.write([{ t: 'attached', target, key, file }]);
  }

  redirect(rule: Rewrite): void {
    this.write([{ t: 'redirect', rule }]);
  }

  complete(target: TargetId): void {
    this.completed.add(target);
    this.write([{ t: 'complete', target }]);
  }

  /**
   * Deletes the journal once every target is complete; returns the path when something is left. A kept
   * journal stays locked while this process lives: work abandoned at publishTimeout may still confirm
   * items into it, and a replay must not send them meanwhile.
   */
  finalize(evidence?: KeptEvidence): string | undefined {
    // A journal that stopped being written is not what the run left to send: nothing is said to be kept.
    if (!this.opened || this.removed || this.unwritable) {
      this.release();
      return undefined;
    }
    const complete = [...this.targets].every((t) => this.completed.has(t));
    if (!complete && evidence) this.keepFiles(evidence);
    this.release();
    if (complete) {
      Outbox.remove(this.file);
      this.removed = true;
      this.releaseLock?.();
      return undefined;
    }
    return this.file;
  }

  /**
   * Copies the files the results attach by path (screenshots, traces under `test-results`) beside a journal
   * kept for replay: Playwright empties its output folder when the next run starts, and the outbox may be
   * replayed on another machine. Files over the upload limit are not copied (they would not go up).
   */
  private keepFiles({ records, maxBytes, secrets }: KeptEvidence): void {
    const base = `${this.file.replace(/\.jsonl$/, '')}.files`;
    const copied = new Set<string>();
    for (const r of records) {
      (r.attachments ?? []).forEach((a, i) => {
        if (!a.path || a.path.startsWith(base + path.sep) || copied.has(a.path)) return;
        copied.add(a.path);
        try {
          if (fs.statSync(a.path).size > maxBytes) return;
          const dir = path.join(base, `${r.testId}-${i}`.replace(/[^\w.-]+/g, '_').slice(0, 80));
          fs.mkdirSync(dir, { recursive: true });
          const to = path.join(dir, path.basename(a.path));
          // A text file may quote a credential (the error a test threw): the copy does not.
          if (isText(a.contentType)) fs.writeFileSync(to, redact(fs.readFileSync(a.path, 'utf8'), secrets));
          else fs.copyFileSync(a.path, to);
          this.write([{ t: 'file', from: a.path, to: path.relative(path.dirname(this.file), to) }]);
        } catch {
          // Gone already: replay says so for this file, as before.
        }
      });
    }
  }

  /** Deletes a journal and the attachment files saved beside it. */
  static remove(file: string): void {
    fs.rmSync(file, { force: true });
    fs.rmSync(`${file.replace(/\.jsonl$/, '')}.files`, { recursive: true, force: true });
  }

  /** The journals in a directory, oldest first. */
  static list(dir: string): string[] {
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => path.join(dir, f));
  }

  /** Reads every journal in a directory (oldest first). Unreadable lines are skipped, not fatal. */
  static load(dir: string): Journal[] {
    return Outbox.list(dir).map((f) => Outbox.parse(f));
  }

  /** Reads a journal back (replay checks `version` before it uses what was read). */
  static readonly parse: (file: string) => Journal = parseJournal;
}
