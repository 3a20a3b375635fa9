/**
 * The outbox journal on disk: its lines, and how replay reads one back. A journal moved elsewhere (an outbox
 * replayed on another machine) finds the files beside it where it is now.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Rewrite } from '../http/redirects';
import type { JournalTargetMeta } from '../kit/target';
import type { AttachmentRef, TargetId, TestRecord } from '../shared/model';

/** The version this package writes and replays; a journal of another version is kept, not replayed. */
export const JOURNAL_VERSION = 2;

/** A confirmed item: key, status, and (since v2) the fingerprint of status + comment. */
export type DoneItem = [key: string, status: number | string, fingerprint?: string];

/** One line of a journal (one JSON object). */
export type JournalLine =
  | { t: 'meta'; v: number; runId: string; createdAt: string; targets: Record<TargetId, JournalTargetMeta>; build?: string }
  | { t: 'test'; rec: TestRecord }
  | { t: 'container'; target: TargetId; id: string; name: string }
  | { t: 'done'; target: TargetId; items: DoneItem[] }
  | { t: 'complete'; target: TargetId }
  /** Keys the service refused (no such Test issue / scenario): sending again cannot help. */
  | { t: 'refused'; target: TargetId; items: Array<[key: string, reason: string]> }
  /** A file attached to a key's result (or skipped for good): replay does not send it again. */
  | { t: 'attached'; target: TargetId; key: string; file: string }
  /** A permanent redirect learned during the run: replay goes straight to the new place. */
  | { t: 'redirect'; rule: Rewrite }
  /** Settings the service refused (a status name it does not have): replay takes them from the config, not from the run. */
  | { t: 'unresolved'; target: TargetId; settings: string[] }
  /** A file attached by path, copied beside a kept journal (`to` relative to the journal's folder). */
  | { t: 'file'; from: string; to: string };

/** A journal as read back from disk (by replay). */
export interface Journal {
  file: string;
  runId: string;
  /** When its run began writing it (ISO time; empty for a journal without a head). */
  createdAt: string;
  /** The CI build the run belonged to (RunInfo.buildId): its replay publishes into that build. */
  build?: string;
  /** Its head's version (absent for a journal without a head). */
  version?: number;
  /** Lines that could not be read (cut short by a killed process, or damaged since). */
  damaged: number;
  /** Targets whose container the run found or made (the others only name what the run was configured with). */
  containerFound: Set<TargetId>;
  targets: Record<TargetId, JournalTargetMeta>;
  records: TestRecord[];
  done: Map<TargetId, Map<string, number | string>>;
  complete: Set<TargetId>;
  redirects: Rewrite[];
  /** By target: `key \0 fileName` of every file attached (or skipped for good). */
  attached: Map<TargetId, Set<string>>;
  /** By target: keys the service refused, with why. */
  refused: Map<TargetId, Map<string, string>>;
  /** By target: settings of the run the service refused (left out of `targets[…].settings`). */
  unresolved: Map<TargetId, string[]>;
}

/** Reads a journal back (replay checks `version` before it uses what was read). */
export function parseJournal(file: string): Journal {
  const journal: Journal = {
    file,
    runId: path.basename(file, '.jsonl'),
    createdAt: '',
    damaged: 0,
    containerFound: new Set(),
    targets: {},
    records: [],
    done: new Map(),
    complete: new Set(),
    redirects: [],
    attached: new Map(),
    refused: new Map(),
    unresolved: new Map(),
  };
  const byTest = new Map<string, TestRecord>();
  // Files beside the journal are found where the journal is now (an outbox moved, or replayed on another machine).
  const copies = new Map<string, string>();
  const filesDir = `${file.replace(/\.jsonl$/, '')}.files`;
  const marker = `${path.basename(filesDir)}${path.sep}`;
  const here = (p: string | undefined): string | undefined => {
    if (!p) return p;
    const copy = copies.get(p);
    if (copy) return copy;
    const at = p.lastIndexOf(marker);
    return at < 0 ? p : path.join(filesDir, p.slice(at + marker.length));
  };
  for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim()) continue;
    let line: JournalLine;
    try {
      line = JSON.parse(text) as JournalLine;
    } catch {
      journal.damaged++; // a line cut short by a killed process
      continue;
    }
    if (line.t === 'meta')
      Object.assign(journal, { runId: line.runId, createdAt: line.createdAt, version: line.v, targets: line.targets, build: line.build });
    else if (line.t === 'test') byTest.set(line.rec.testId, line.rec);
    else if (line.t === 'container') {
      const meta = journal.targets[line.target];
      if (meta) meta.containerId = line.id;
      journal.containerFound.add(line.target);
    } else if (line.t === 'done') {
      const m = journal.done.get(line.target) ?? new Map<string, number | string>();
      // The fingerprint when there is one; journals before it recorded the status only.
      for (const [key, status, print] of line.items) m.set(key, print ?? status);
      journal.done.set(line.target, m);
    } else if (line.t === 'complete') journal.complete.add(line.target);
    else if (line.t === 'redirect') journal.redirects.push(line.rule);
    else if (line.t === 'unresolved') {
      const meta = journal.targets[line.target];
      if (meta) meta.settings = Object.fromEntries(Object.entries(meta.settings).filter(([k]) => !line.settings.includes(k)));
      journal.unresolved.set(line.target, [...new Set([...(journal.unresolved.get(line.target) ?? []), ...line.settings])]);
    } else if (line.t === 'refused') {
      const m = journal.refused.get(line.target) ?? new Map<string, string>();
      for (const [key, reason] of line.items) m.set(key, reason);
      journal.refused.set(line.target, m);
    } else if (line.t === 'file') copies.set(line.from, path.resolve(path.dirname(file), line.to));
    else if (line.t === 'attached') {
      const set = journal.attached.get(line.target) ?? new Set<string>();
      set.add(`${line.key}\0${line.file}`);
      journal.attached.set(line.target, set);
    }
  }
  const moved = (a: AttachmentRef): AttachmentRef => {
    const now = here(a.path);
    return now === a.path ? a : { ...a, path: now, origin: a.origin ?? a.path };
  };
  journal.records = [...byTest.values()].map((r) => (r.attachments ? { ...r, attachments: r.attachments.map(moved) } : r));
  return journal;
}
