import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redact } from '../http/errors';
import type { PublishResult, Target, UploadFile } from '../kit/target';
import type { AttachmentRef, PlanItem } from '../shared/model';

/** What one target's uploads came to (summary line and JSON). */
export interface UploadTally {
  uploaded: number;
  /** Already attached by an earlier process (found by name before sending). */
  present: number;
  /** Not uploaded on purpose, one `name (why)` each: over attachmentMaxBytes, file gone by replay time. */
  skipped: string[];
  /** Could not be sent (kept in the outbox for replay), one `name: reason` each. */
  failed: string[];
}

export interface UploadQueueOptions {
  target: Target;
  maxBytes: number;
  /** `key \0 fileName` of files an earlier process journaled as attached. */
  attached?: ReadonlySet<string>;
  /** Look before each first upload (replay: an earlier process may have sent without journaling). */
  check: boolean;
  /** Journals one confirmed (or deliberately skipped) file. */
  onDone(key: string, fileName: string): void;
  /** The run's credentials: cut from text files (Playwright's error-context.md quotes the error a test threw). */
  secrets?: readonly string[];
  /**
   * The target's Target.inlineEvidence, when its status calls may carry files: not on a replay, nor in a shared CI
   * build (another process may have put files on these keys already; `attach` looks before it sends).
   */
  inline?: { maxBytesPerCall: number; maxBytesPerFile: number };
}

/** Text a person reads (and a credential could be quoted in): markdown, logs, JSON. */
export const isText = (contentType: string): boolean => /^text\/|json|markdown|xml/i.test(contentType);

/** Files handed to one status call (offerInline), by item, and their `key \0 fileName` ids. */
export interface InlineOffer {
  files: Map<PlanItem, UploadFile[]>;
  ids: string[];
}

/** One file read for sending: its bytes (text redacted), or why it is not sent, or not there (yet). */
export type UploadRead = { bytes: Buffer } | { skip: string } | { missing: true };

/**
 * Reads one attachment for sending, as every path does: a file over `maxBytes` is not read, a folder is not a
 * file, a file not there may still be being written by the test's process (the caller decides), and the run's
 * credentials are cut from text files.
 */
export function readUpload(ref: AttachmentRef, o: { maxBytes: number; secrets?: readonly string[] }): UploadRead {
  let bytes = ref.body;
  if (!bytes) {
    const stat = fs.statSync(ref.path ?? '', { throwIfNoEntry: false });
    if (stat === undefined) return { missing: true };
    // A folder (or a device) given as an attachment's path: no later try can send it.
    if (!stat.isFile()) return { skip: `not a file: ${ref.path}` };
    if (stat.size > o.maxBytes) return { skip: `${stat.size} bytes, over attachmentMaxBytes ${o.maxBytes}` };
    bytes = fs.readFileSync(ref.path as string);
  } else if (bytes.length > o.maxBytes) {
    return { skip: `${bytes.length} bytes, over attachmentMaxBytes ${o.maxBytes}` };
  }
  if (o.secrets?.length && isText(ref.contentType)) bytes = Buffer.from(redact(bytes.toString('utf8'), o.secrets), 'utf8');
  return { bytes };
}

/** Files going up at once: two overlap one file's round trip with the other's transfer; each is held in memory. */
const UPLOADS_AT_ONCE = 2;

/**
 * The uploads of one target, behind the statuses: a result's files are queued once its status is
 * confirmed, so a slow upload never holds a status back, and the lane's rate limit budgets both. Each
 * file goes up at most once per (key, name): the journal remembers what is done.
 */
export class UploadQueue {
  readonly tally: UploadTally = { uploaded: 0, present: 0, skipped: [], failed: [] };
  private readonly queued = new Set<string>();
  /** Files offered to a status call still in flight (offerInline): the queue leaves them until it settles. */
  private readonly held = new Set<string>();
  /** Files ever offered inline: never offered again (a call that did not confirm one may have applied it). */
  private readonly offeredOnce = new Set<string>();
  private untried = 0;
  private readonly todo: Array<() => Promise<void>> = [];
  private running = 0;
  private readonly idle: Array<() => void> = [];
  /**
   * Set when the end of the run begins. Before that, a file not found yet is left for the end (the
   * test's process may still be writing it) instead of being skipped for good.
   */
  private ending = false;

  constructor(private readonly o: UploadQueueOptions) {}

  /** Queues the item's files that are neither done nor queued. */
  enqueue(item: PlanItem): void {
    if (!this.o.target.attach || !item.attachments?.length) return;
    for (const { ref, fileName } of uploadNames(item.attachments)) {
      const id = `${item.key}\0${fileName}`;
      if (this.o.attached?.has(id) || this.queued.has(id) || this.held.has(id)) continue;
      this.queued.add(id);
      this.untried++;
      this.todo.push(() => this.upload(item, ref, fileName).finally(() => this.untried--));
    }
    this.pump();
  }

  private pump(): void {
    while (this.running < UPLOADS_AT_ONCE && this.todo.length) {
      this.running++;
      void this.todo.shift()!().finally(() => {
        this.running--;
        this.pump();
        if (!this.running) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  /** Files queued and not yet tried (for progress lines). */
  get waiting(): number {
    return this.untried;
  }

  /** The end of the run: what is queued, then the files of `sent` not up yet (a file missing now is skipped for good). */
  async finish(sent: readonly PlanItem[]): Promise<UploadTally> {
    await this.drain();
    this.ending = true;
    for (const item of sent) this.enqueue(item);
    await this.drain();
    return this.tally;
  }

  /** Resolves when everything queued has been tried. */
  drain(): Promise<void> {
    return this.running ? new Promise((resolve) => this.idle.push(resolve)) : Promise.resolve();
  }

  /** Never rejects: whatever goes wrong with one file is that file's line in the summary. */
  private async upload(item: PlanItem, ref: AttachmentRef, fileName: string): Promise<void> {
    try {
      const read = readUpload(ref, this.o);
      if ('missing' in read) {
        if (!this.ending) return void this.queued.delete(`${item.key}\0${fileName}`);
        return this.skip(item.key, fileName, `file gone: ${ref.path}`);
      }
      if ('skip' in read) return this.skip(item.key, fileName, read.skip);
      const how = await this.o.target.attach!(
        item,
        { fileName, contentType: ref.contentType, bytes: read.bytes, test: ref.test },
        { check: this.o.check },
      );
      this.tally[how === 'present' ? 'present' : 'uploaded']++;
      this.o.onDone(item.key, fileName);
    } catch (error) {
      this.tally.failed.push(`${fileName} (${item.key}): ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /**
   * The files of `items` the target can carry in the status call itself (Target.inlineEvidence): each read as
   * `upload` reads it, within the per-file and per-call budgets, and held back from the queue until `settleInline`.
   * A file is offered once per process: one whose call did not confirm it may have been applied anyway, so it goes
   * by `attach`, which looks first. Undefined when there is nothing to offer.
   */
  offerInline(items: readonly PlanItem[]): InlineOffer | undefined {
    const budget = this.o.inline;
    if (!budget) return undefined;
    const files = new Map<PlanItem, UploadFile[]>();
    const ids: string[] = [];
    let room = budget.maxBytesPerCall;
    for (const item of items) {
      for (const { ref, fileName } of uploadNames(item.attachments ?? [])) {
        const id = `${item.key}\0${fileName}`;
        if (this.o.attached?.has(id) || this.queued.has(id) || this.offeredOnce.has(id)) continue;
        const read = readUpload(ref, { ...this.o, maxBytes: Math.min(this.o.maxBytes, budget.maxBytesPerFile, room) });
        // Missing, too large, not a file: the queue deals with it as it always has.
        if (!('bytes' in read)) continue;
        room -= read.bytes.length;
        this.offeredOnce.add(id);
        this.held.add(id);
        ids.push(id);
        files.set(item, [...(files.get(item) ?? []), { fileName, contentType: ref.contentType, bytes: read.bytes, test: ref.test }]);
      }
    }
    return files.size ? { files, ids } : undefined;
  }

  /**
   * After the status call (whether it settled or threw): the files the target carried are done (journaled,
   * counted as uploaded); the others are released to the queue, for the items the call confirmed.
   */
  settleInline(offer: InlineOffer | undefined, carried: PublishResult['carried'], done: readonly PlanItem[]): void {
    if (!offer) return;
    for (const { item, fileName } of carried ?? []) {
      const id = `${item.key}\0${fileName}`;
      if (!offer.ids.includes(id) || this.queued.has(id)) continue;
      this.queued.add(id);
      this.tally.uploaded++;
      this.o.onDone(item.key, fileName);
    }
    for (const id of offer.ids) this.held.delete(id);
    for (const item of done) if (offer.files.has(item)) this.enqueue(item);
  }
  private skip(key: string, fileName: string, why: string): void {
    this.tally.skipped.push(`${fileName} (${why})`);
    // Final: a replay would skip it again, so it must not keep the journal open.
    this.o.onDone(key, fileName);
  }
}

/**
 * The name each file goes up under: the attachment's name with its file's extension (Playwright
 * stores files under content hashes, so `notes` at `…/notes-3f2a….txt` goes up as `notes.txt`). Two
 * files of one result with the same name are told apart by a short hash of their path, the same
 * whatever order the tests finished in, so a replay sees the same names.
 */
export function uploadNames(files: readonly AttachmentRef[]): Array<{ ref: AttachmentRef; fileName: string }> {
  const base = files.map((f) => withExtension(f.name, f.contentType, f.path ? path.extname(f.path) : undefined));
  const counts = new Map<string, number>();
  for (const b of base) counts.set(b, (counts.get(b) ?? 0) + 1);
  return files.map((ref, i) => {
    const b = base[i];
    if ((counts.get(b) ?? 0) < 2) return { ref, fileName: b };
    // Of where the run found the file: a replay that reads a copy, or a moved outbox, gives the same name.
    const hash = createHash('sha1')
      .update(ref.origin ?? ref.path ?? ref.name)
      .digest('hex')
      .slice(0, 6);
    return { ref, fileName: `${hash}-${b}` };
  });
}

/** A content type's usual extension, or ''. mime-types (its 240 KB table: ≈ 30 ms of CPU, 0.6 MB) loads at first use. */
let mimeTypes: typeof import('mime-types') | undefined;
const extensionOf = (contentType: string): string => {
  const ext = (mimeTypes ??= require('mime-types') as typeof import('mime-types')).extension(contentType);
  return ext ? `.${ext}` : '';
};

/** Longest name sent (extension included): services and file systems cap names near 255. */
const MAX_NAME = 120;

/** A file name for an attachment: its name, made safe, with the extension of its file or else of its type. */
export function withExtension(name: string, contentType: string, fileExtension?: string): string {
  // Accents are dropped rather than the letters they sit on ("résumé" -> "resume"); other scripts become "_"
  // (the multipart file-name encoding the services accept beyond ASCII is not established).
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\w.-]+/g, '_');
  const safe = /[A-Za-z0-9]/.test(ascii) ? ascii : 'attachment';
  // What follows the last dot is an extension only if it looks like one ("report.final v2" has none).
  const own = /^\.[A-Za-z0-9]{1,5}$/.test(path.extname(safe)) ? path.extname(safe) : '';
  const ext = own || fileExtension || extensionOf(contentType);
  const stem = own ? safe.slice(0, -own.length) : safe;
  // A long name keeps its start and its extension (a test title used as the name can run to hundreds of characters).
  return `${stem.slice(0, Math.max(1, MAX_NAME - ext.length))}${ext.slice(0, MAX_NAME)}`;
}
