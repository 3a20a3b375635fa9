/**
 * When a test's final attempt may still be run again. A serial group (`test.describe.configure({ mode:
 * 'serial' })`) with retries left runs every test of the group again when one of them fails, those that
 * passed included: a passing attempt was not the test's last after all, and sending it at once would send
 * the test twice (a second CucumberStudio result) with a first outcome that was not its final one.
 * Playwright's reporter API does not say which tests are serial, so an attempt that ends with retries left
 * waits until every test of its file has ended for good (a serial group never spans files); another
 * attempt of the test drops the wait. A run without retries sends every test as it ends.
 */

/** The part of Playwright's Suite the hold reads. */
export interface SuiteLike {
  type: 'root' | 'project' | 'file' | 'describe';
  parent?: SuiteLike;
  allTests(): ReadonlyArray<{ id: string }>;
}

export interface HeldTest {
  id: string;
  retries: number;
  parent: SuiteLike;
}

interface FileState {
  total: number;
  /** Tests whose last attempt so far was final. */
  final: Set<string>;
  /** Final attempts that a serial group's retry could still run again, by test id: sent once the file is over. */
  held: Map<string, () => void>;
}

export class RerunHold {
  private readonly files = new Map<SuiteLike, FileState>();

  /** A test's attempt began: a held result of an earlier attempt is not its last one after all. */
  began(test: HeldTest): void {
    const file = this.files.get(fileOf(test.parent));
    if (!file) return;
    file.final.delete(test.id);
    file.held.delete(test.id);
  }

  /** A test's attempt ended final (`send` sends its result): now, or once nothing of its file can run it again. */
  ended(test: HeldTest, retry: number, interrupted: boolean, send: () => void): void {
    const suite = fileOf(test.parent);
    let file = this.files.get(suite);
    if (!file) this.files.set(suite, (file = { total: suite.allTests().length, final: new Set(), held: new Map() }));
    file.final.add(test.id);
    if (retry < test.retries && !interrupted) file.held.set(test.id, send);
    else send();
    if (file.final.size < file.total) return;
    const held = [...file.held.values()];
    file.held.clear();
    for (const release of held) release();
  }
}

/** The file a test belongs to (a serial group never spans files); the nearest suite when there is none. */
function fileOf(suite: SuiteLike): SuiteLike {
  for (let s: SuiteLike | undefined = suite; s; s = s.parent) if (s.type === 'file') return s;
  return suite;
}
