import { keysOf, type TestRecord } from '../model';

/**
 * Which keys of one target are final: a key is ready once every test mapped to it has its final
 * outcome. Tests mapped before the run (tags, static annotations) are known from the start; a test
 * mapped at run time (an annotation added in the test) joins its key when its result arrives, so the
 * key's result is planned again over all its tests (worst wins) and corrected if it was sent already.
 */
export class KeyReadiness {
  private readonly testsByKey = new Map<string, Set<string>>();
  private readonly finals = new Map<string, TestRecord>();

  constructor(private readonly target: string) {}

  /** The tests known before the run, with their keys. */
  expect(tests: readonly Pick<TestRecord, 'testId' | 'keys'>[]): void {
    for (const t of tests) for (const key of keysOf(t, this.target)) this.tests(key).add(t.testId);
  }

  /** Records a final result; returns the keys it touches. */
  add(record: TestRecord): string[] {
    const keys = keysOf(record, this.target);
    if (!keys.length) return [];
    this.finals.set(record.testId, record);
    for (const key of keys) this.tests(key).add(record.testId);
    return keys;
  }

  /** Of these keys, the ready ones and the records that feed them. */
  ready(keys: Iterable<string>): { keys: Set<string>; records: TestRecord[] } {
    const ready = new Set<string>();
    const records = new Map<string, TestRecord>();
    for (const key of keys) {
      const tests = this.testsByKey.get(key);
      if (!tests || ![...tests].every((t) => this.finals.has(t))) continue;
      ready.add(key);
      for (const t of tests) records.set(t, this.finals.get(t)!);
    }
    return { keys: ready, records: [...records.values()] };
  }

  /** Every key seen so far. */
  keys(): IterableIterator<string> {
    return this.testsByKey.keys();
  }

  private tests(key: string): Set<string> {
    let set = this.testsByKey.get(key);
    if (!set) this.testsByKey.set(key, (set = new Set()));
    return set;
  }
}
