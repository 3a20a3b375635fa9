// Evidence: a failing test with an attachment and steps. Its screenshot-like file, Playwright's error
// context and the step statuses (passed, failed, skipped) go up with its result.
import { test, expect } from '@playwright/test';

// A 1×1 PNG, standing in for `page.screenshot()` (the example needs no browser).
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

test('checkout shows the receipt', { tag: ['@PROJ-13', '@cs-6'] }, async ({}, testInfo) => {
  await test.step('fill the cart', async () => {
    expect([1, 2]).toHaveLength(2);
  });
  await test.step('pay', async () => {
    await testInfo.attach('payment page', { body: PIXEL, contentType: 'image/png' });
    expect('declined', 'the payment answer').toBe('accepted');
  });
  await test.step('see the receipt', async () => {
    expect(true).toBe(true);
  });
});
