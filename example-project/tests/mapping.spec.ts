// How a Playwright test is mapped to a Zephyr issue key and a CucumberStudio scenario id.
import { test, expect } from '@playwright/test';

test(
  'passes, mapped by annotation',
  {
    annotation: [
      { type: 'zephyr', description: 'PROJ-1' },
      { type: 'cucumberstudio', description: '1' },
    ],
  },
  async () => {
    expect(1 + 1).toBe(2);
  },
);

test('passes, mapped by tag option', { tag: '@PROJ-2' }, async () => {
  expect('playwright').toContain('wright');
});

test('passes, mapped by title tag @PROJ-3', async () => {
  expect([1, 2, 3]).toHaveLength(3);
});

test(
  'passes, reports to two keys',
  {
    annotation: { type: 'zephyr', description: 'PROJ-4' },
    tag: '@PROJ-5',
  },
  async () => {
    expect({ a: 1 }).toEqual({ a: 1 });
  },
);

test('passes, not mapped to anything', async () => {
  expect(true).toBeTruthy();
});
