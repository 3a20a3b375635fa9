import { redact } from '../http/errors';
import type { TestRecord } from '../shared/model';
import type { Outbox } from './outbox';
import { isText } from './uploads';

/**
 * What the engine keeps of each test's record, and the journal lines it writes for them: the run's own
 * credentials out of the title and error text (a test may print its environment, and the text goes into
 * comments and the journal), bodies written to files beside the journal (the journal and the uploads read
 * paths), and a record journaled again only when it changed.
 */
export class RecordKeeper {
  /** testId -> fingerprint of the record last journaled. */
  private readonly journaled = new Map<string, string>();

  constructor(
    private readonly secrets: readonly string[],
    private readonly outbox?: Outbox,
  ) {}

  /** The record as the engine keeps, journals and sends it: credentials redacted, bodies in files beside the journal. */
  kept(record: TestRecord): TestRecord {
    const r = this.withFilesOnly(record);
    // The title too: a test may be named after a value it reads from the environment.
    const [title, error] = [redact(r.title, this.secrets), r.error && redact(r.error, this.secrets)];
    return title === r.title && error === r.error ? r : { ...r, title, error };
  }

  /** Journals records (synchronously) unless identical ones were journaled already. */
  journal(records: readonly TestRecord[]): void {
    if (!this.outbox) return;
    const fresh = records.filter((r) => {
      // A short fingerprint, not the record's JSON: this map lives as long as the run (10,000s of tests).
      const keys = Object.entries(r.keys)
        .map(([t, k]) => `${t}:${k.join(',')}`)
        .join(';');
      const print = `${r.outcome}|${r.attempts}|${keys}|${r.error?.length ?? -1}|${r.steps?.join(',') ?? ''}|${r.attachments?.length ?? 0}|${r.startedAt ?? ''}`;
      if (this.journaled.get(r.testId) === print) return false;
      this.journaled.set(r.testId, print);
      return true;
    });
    this.outbox.appendTests(fresh);
  }

  private withFilesOnly(record: TestRecord): TestRecord {
    if (!record.attachments?.some((a) => a.body)) return record;
    const attachments = record.attachments.flatMap((a, i) => {
      if (!a.body) return [a];
      if (!this.outbox) return [];
      // A text body may quote a credential (a test that logs its environment): the file never holds it.
      const body = isText(a.contentType) ? Buffer.from(redact(a.body.toString('utf8'), this.secrets), 'utf8') : a.body;
      const file = this.outbox.saveBody(record.testId, i, a.name, a.contentType, body);
      // An outbox that cannot be written: the body goes up from memory (and is not kept).
      // (Its origin tells two bodies of one name apart, as a path would.)
      return [
        file
          ? { name: a.name, contentType: a.contentType, path: file }
          : { name: a.name, contentType: a.contentType, body, origin: `${record.testId}#${i}` },
      ];
    });
    return { ...record, attachments };
  }
}
