import type { TestCase } from '@playwright/test/reporter';
import { keysByTarget, type KeySource } from '../shared/mapping';
import { keysOf, type TestRecord } from '../shared/model';

/** Split mode: the test's Playwright project ('' for an unnamed one), where its results go apart from other projects'. */
export function placeOf(test: TestCase, projects: 'merge' | 'split' | undefined): { place?: string } {
  return projects === 'split' ? { place: test.parent.project()?.name ?? '' } : {};
}

/** The keys of the tests that never started (the run stopped first), by target, placed as their records would be. */
export function notRunKeys(
  tests: readonly TestCase[],
  records: readonly TestRecord[],
  sources: readonly KeySource[],
  projects: 'merge' | 'split' | undefined,
): Record<string, string[]> {
  const recorded = new Set(records.map((r) => r.testId));
  const keys: Record<string, string[]> = {};
  for (const t of tests.filter((t) => !recorded.has(t.id)))
    for (const target of sources.map((d) => d.id))
      (keys[target] ??= []).push(...keysOf({ keys: keysByTarget(t, sources), ...placeOf(t, projects) }, target));
  return keys;
}
