// Several tests reporting to one key: the worst result wins (FAIL > BLOCKED > WIP > PASS > UNEXECUTED).
import { test, expect } from '@playwright/test';

const both = {
  annotation: [
    { type: 'zephyr', description: 'PROJ-11' },
    { type: 'cucumberstudio', description: '5' },
  ],
};

test('shared key: this half passes', both, async () => {
  expect('login').toMatch(/log/);
});

test('shared key: this half fails', both, async () => {
  expect(['admin', 'user'], 'roles').toContain('guest');
});
