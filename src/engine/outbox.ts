import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash, hash, randomBytes } from 'node:crypto';
import type { Rewrite } from '../http/redirects';
import { acquireJournalLock } from '../kit/journal-lock';
import type { JournalTargetMeta } from '../kit/target';
import type { PlanItem, TargetId, TestRecord } from '../model';
import { withExtension } from './uploads';

/** Version 1 (before targets were generic): fixed destination fields, keys in per-service fields. */
interface V1Meta {
  projectId: number;
  versionId?: number;
  containerName: string;
  containerId?: string;
}

/** How a journal's version-1 lines are read: which record field held each target's keys. */
export interface LegacyKeys {
  readonly id: string;
  readonly legacyKeysField?: string;
}

/** A confirmed item: key, status, and (since v2) the fingerprint of status + comment. */
export type DoneItem = [key: string, status: number | string, fingerprint?: string];

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

type Line =
  | { t: 'meta'; v: 2; runId: string; createdAt: string; targets: Record<TargetId, JournalTargetMeta> }
  | { t: 'meta'; v: 1; runId: string; createdAt: string; targets: Record<TargetId, V1Meta> }
  | { t: 'test'; rec: TestRecord }
  | { t: 'container'; target: TargetId; id: string; name: string }
  | { t: 'done'; target: TargetId; items: DoneItem[] }
  | { t: 'complete'; target: TargetId }
  /** A file attached to a key's result (or skipped for good): replay does not send it again. */
  | { t: 'attached'; target: TargetId; key: string; file: string }
  /** A permanent redirect learned during the run: replay goes straight to the new place. */
  | { t: 'redirect'; rule: Rewrite };

/** A journal as read back from disk (by replay). */
export interface Journal {
  file: string;
  runId: string;
  /** When its run began writing it (ISO time; empty for a journal without a head). */
  createdAt: string;
  /** Lines that could not be read (cut short by a killed process, or damaged since). */
  damaged: number;
  targets: Record<TargetId, JournalTargetMeta>;
  records: TestRecord[];
  done: Map<TargetId, Map<string, number | string>>;
  complete: Set<TargetId>;
  redirects: Rewrite[];
  /** By target: `key \0 fileName` of every file attached (or skipped for good). */
  attached: Map<TargetId, Set<string>>;
}

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

  constructor(
    readonly dir: string,
    private readonly meta: Record<TargetId, JournalTargetMeta>,
    file?: string,
  ) {
    this.file =
      file ??
      path.join(dir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(3).toString('hex')}.jsonl`);
    this.targets = new Set(Object.keys(meta));
    // An existing journal (replay) is appended to, not re-headed.
    this.opened = file !== undefined && fs.existsSync(file);
  }

  private write(lines: Line[]): void {
    if (!lines.length || this.removed) return;
    if (!this.opened) {
      fs.mkdirSync(this.dir, { recursive: true });
      // Held until the journal is finalized, or until this process exits when it is kept for replay.
      const lock = acquireJournalLock(this.file);
      if (lock.acquired) this.releaseLock = lock.release;
      const head: Line = {
        t: 'meta',
        v: 2,
        runId: path.basename(this.file, '.jsonl'),
        createdAt: new Date().toISOString(),
        targets: this.meta,
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
  saveBody(testId: string, index: number, name: string, contentType: string, body: Buffer): string {
    // One folder per attachment, so that the file keeps the attachment's own name (the name it is uploaded under).
    const dir = path.join(`${this.file.replace(/\.jsonl$/, '')}.files`, `${testId}-${index}`.replace(/[^\w.-]+/g, '_').slice(0, 80));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, withExtension(name, contentType).slice(0, 120));
    fs.writeFileSync(file, body);
    return file;
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
  finalize(): string | undefined {
    if (!this.opened || this.removed) return undefined;
    this.release();
    if ([...this.targets].every((t) => this.completed.has(t))) {
      Outbox.remove(this.file);
      this.removed = true;
      this.releaseLock?.();
      return undefined;
    }
    return this.file;
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
  static load(dir: string, legacy: readonly LegacyKeys[]): Journal[] {
    return Outbox.list(dir).map((f) => Outbox.parse(f, legacy));
  }

  /** Reads a journal of this version or of version 1 (`legacy` says where v1 kept each target's keys). */
  static parse(file: string, legacy: readonly LegacyKeys[]): Journal {
    const journal: Journal = {
      file,
      runId: path.basename(file, '.jsonl'),
      createdAt: '',
      damaged: 0,
      targets: {},
      records: [],
      done: new Map(),
      complete: new Set(),
      redirects: [],
      attached: new Map(),
    };
    const byTest = new Map<string, TestRecord>();
    for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!text.trim()) continue;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        journal.damaged++; // a line cut short by a killed process
        continue;
      }
      if (line.t === 'meta')
        Object.assign(journal, {
          runId: line.runId,
          createdAt: line.createdAt,
          targets: line.v === 1 ? fromV1Meta(line.targets) : line.targets,
        });
      else if (line.t === 'test') byTest.set(line.rec.testId, line.rec.keys ? line.rec : fromV1Record(line.rec, legacy));
      else if (line.t === 'container') {
        const meta = journal.targets[line.target];
        if (meta) meta.containerId = line.id;
      } else if (line.t === 'done') {
        const m = journal.done.get(line.target) ?? new Map<string, number | string>();
        // The fingerprint when there is one; journals before it recorded the status only.
        for (const [key, status, print] of line.items) m.set(key, print ?? status);
        journal.done.set(line.target, m);
      } else if (line.t === 'complete') journal.complete.add(line.target);
      else if (line.t === 'redirect') journal.redirects.push(line.rule);
      else if (line.t === 'attached') {
        const set = journal.attached.get(line.target) ?? new Set<string>();
        set.add(`${line.key}\0${line.file}`);
        journal.attached.set(line.target, set);
      }
    }
    journal.records = [...byTest.values()];
    return journal;
  }
}

function fromV1Meta(targets: Record<string, V1Meta>): Record<string, JournalTargetMeta> {
  const out: Record<string, JournalTargetMeta> = {};
  for (const [id, m] of Object.entries(targets)) {
    const settings: Record<string, unknown> = {};
    // v1 wrote projectId 0 for a target whose settings were invalid: nothing to carry over then.
    if (m.projectId) settings.projectId = m.projectId;
    if (m.projectId && m.versionId !== undefined) settings.versionId = m.versionId;
    out[id] = { settings, containerName: m.containerName, containerId: m.containerId };
  }
  return out;
}

function fromV1Record(rec: TestRecord, legacy: readonly LegacyKeys[]): TestRecord {
  const old = rec as unknown as Record<string, unknown>;
  const keys: Record<string, string[]> = {};
  for (const t of legacy) {
    const v = t.legacyKeysField ? old[t.legacyKeysField] : undefined;
    if (Array.isArray(v) && v.length) keys[t.id] = v.map(String);
  }
  const { testId, title, outcome, error, attempts } = rec;
  return { testId, title, keys, outcome, error, attempts };
}
