import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs';

// Tests clean up what they write: every run folder made through the harness goes after its file.
afterAll(() => removeTempDirs());
