import { keysOf, type TestRecord } from '../shared/model';

/**
 * Which keys of one target are complete: a key is complete once every test mapped to it has its final
 * outcome (only then is its result, worst of its tests, worth sending). Tests mapped before the run (tags, static annotations) are known from the start; a test
 * mapped at run time (an annotation added in the test) joins its key when its result arrives, so the
 * key's result is planned again over all its tests (worst wins) and corrected if it was sent already.
 */
export class KeyCompleteness {
  private readonly testsByKey = new Map<string, Set<string>>();
  private readonly finals = new Map<string, TestRecord>();

  constructor(private readonly target: string) {}

  /** The tests known before the run, with their keys. */
  expect(tests: readonly Pick<TestRecord, 'testId' | 'keys' | 'place'>[]): void {
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

  /** Of these keys, the complete ones and the records that feed them. */
  complete(keys: Iterable<string>): { keys: Set<string>; records: TestRecord[] } {
    const complete = new Set<string>();
    const records = new Map<string, TestRecord>();
    for (const key of keys) {
      const tests = this.testsByKey.get(key);
      if (!tests || ![...tests].every((t) => this.finals.has(t))) continue;
      complete.add(key);
      for (const t of tests) records.set(t, this.finals.get(t)!);
    }
    return { keys: complete, records: [...records.values()] };
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
