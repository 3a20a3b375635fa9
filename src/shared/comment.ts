/**
 * The text that goes with a result: a comment within the service's limit (each test's first error line
 * and location kept whole, the rest shared out), and the error text cleaned of terminal codes. Pure.
 */
import { stripVTControlCharacters } from 'node:util';
import type { Outcome, TestRecord } from './model';

export const ERROR_TEXT_LIMIT = 4000;
/** Longest error text a record keeps: what the full-error attachment can hold when a comment had to be cut. */
export const FULL_ERROR_LIMIT = 20_000;
const CUT_MARK = '… [truncated]';

/** Colours, cursor moves and terminal hyperlinks (`ESC ] 8 ;; url BEL`) out: Node's own ANSI pattern. */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text);
}

/** The first `n` UTF-16 units of `text`, never half of a surrogate pair (an emoji cut in two is not text). */
export function head(text: string, n: number): string {
  const cut = text.slice(0, Math.max(0, n));
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Cuts text to `limit` characters, the cut marked so a reader knows there was more. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${head(text, limit - CUT_MARK.length)}${CUT_MARK}`;
}

/** Whether `truncate` (or `fitComment`) had to cut this text. */
export function wasCut(text: string): boolean {
  // Not only at the end: a first error line too long for the comment is cut before its location.
  return text.includes(CUT_MARK);
}

/**
 * Joins comment blocks within `limit`. Each block's head (what happened, the first error line, where) is
 * kept whole where it fits; the rest of each block shares what is left, so a long stack or call log of
 * one test never pushes another test's first line out.
 */
export function fitComment(blocks: ReadonlyArray<{ head: string; rest: string }>, limit: number): string {
  const full = blocks.map((b) => b.head + b.rest).join('\n\n');
  if (full.length <= limit) return full;
  const heads = blocks.map((b) => b.head).join('\n\n');
  if (heads.length + CUT_MARK.length >= limit) return truncate(heads, limit);
  const share = Math.floor((limit - heads.length - CUT_MARK.length) / blocks.length);
  const body = blocks.map((b) => b.head + head(b.rest, share)).join('\n\n');
  return `${head(body, limit - CUT_MARK.length)}${CUT_MARK}`;
}

/** Whether a comment is one `defaultComment` wrote (by its heads): people's own comments are not. */
export function isDefaultComment(text: string): boolean {
  return /^(?:Failed|Timed out|Interrupted): |^Flaky: passed on attempt \d/.test(text);
}

/** Said of an interrupted test (it has no error of its own). */
const INTERRUPTED = 'The run stopped before this test finished (Ctrl+C, a CI cancel, --max-failures or the globalTimeout).';

/**
 * Default comment: for each failing test what went wrong first (its first error line and where), then
 * which test, then the rest of its error; a note for flaky tests. Nothing is cut when the whole text fits.
 * Otherwise, within `limit`, each test's first error line, its location and its title (cut to a share: a huge
 * title must not push the error out) are kept; the rest of the text is what gets cut.
 */
export function defaultComment(item: { outcome: Outcome; records: TestRecord[] }, limit: number): string {
  // Shares are for a text that must be cut: a title or first line cut while the whole comment fits marks the
  // comment cut, and a cut comment uploads error.txt (one more call against the service's budget).
  const whole = commentBlocks(item.records, Infinity, Infinity);
  const text = whole.map((b) => b.head + b.rest).join('\n\n');
  if (text.length <= limit) return text;
  // Only the tests that write a block share the comment: a passing test on the key says nothing in it.
  const share = Math.max(60, Math.floor(limit / (2 * Math.max(1, whole.length))));
  return fitComment(commentBlocks(item.records, share, Math.max(40, Math.floor(share / 2))), limit);
}

/**
 * The blocks of a comment, failures first: with many tests on one key, what is cut is the flaky notes, never
 * the failure that set the status. A first line longer than `share`, or a title longer than `titleShare`, is
 * cut within the head, so that what comes after it stays.
 */
function commentBlocks(records: readonly TestRecord[], share: number, titleShare: number): Array<{ head: string; rest: string }> {
  const blocks: Array<{ head: string; rest: string }> = [];
  const notes: Array<{ head: string; rest: string }> = [];
  for (const r of records) {
    const [whole = '', ...more] = (r.error ?? '').split('\n');
    const first = truncate(whole, share);
    const title = truncate(r.title, titleShare);
    const where = r.errorLocation ? `\nat ${r.errorLocation}` : '';
    const rest = more.length ? `\n${more.join('\n')}` : '';
    if (r.outcome === 'failed' || r.outcome === 'timedOut' || r.outcome === 'interrupted') {
      const what = r.outcome === 'timedOut' ? 'Timed out' : r.outcome === 'interrupted' ? 'Interrupted' : 'Failed';
      // An interruption carries no error of its own: the comment says what stops a run, or it reads as a bug.
      const why = r.error ? first : r.outcome === 'interrupted' ? INTERRUPTED : 'no error text';
      blocks.push({ head: `${what}: ${why}${where}\nin ${title}`, rest });
    } else if (r.outcome === 'flaky') {
      notes.push({
        // A serial group's retry may run a test that had passed again, and fail it: the failure came later.
        head: `Flaky: passed on attempt ${r.passedAttempt ?? r.attempts} of ${title}${r.error ? `\n${r.passedAttempt ? 'Later' : 'Earlier'} failure: ${first}` : ''}${where}`,
        rest,
      });
    }
  }
  return [...blocks, ...notes];
}
