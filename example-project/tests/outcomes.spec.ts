// One test per Playwright outcome, to see how each one lands in Zephyr and CucumberStudio.
import { test, expect } from '@playwright/test';

test('fails with a real assertion error', { tag: ['@PROJ-6', '@cs-2'] }, async () => {
  const total = [10, 20, 30].reduce((a, b) => a + b, 0);
  expect(total, 'the cart total').toBe(70);
});

test(
  'is flaky: fails first, passes on retry',
  {
    annotation: [
      { type: 'zephyr', description: 'PROJ-7' },
      { type: 'cucumberstudio', description: '3' },
    ],
  },
  async () => {
    expect(test.info().retry, 'passes only on the retry').toBeGreaterThan(0);
  },
);

test.skip('is skipped @PROJ-8 @cs-4', async () => {
  expect(true).toBe(false);
});

test.fixme('is marked fixme', { tag: '@PROJ-9' }, async () => {
  expect(true).toBe(false);
});

test('fails as expected with test.fail()', { tag: '@PROJ-10' }, async () => {
  test.fail(true, 'known bug: rounding');
  expect(0.1 + 0.2).toBe(0.3);
});
