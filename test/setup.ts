// Runs in every test file's process before its tests (vitest.config.ts
// setupFiles): the temp folders a file made are removed when it ends.
import { afterAll } from 'vitest';
import { removeTempDirs } from './support.js';

afterAll(removeTempDirs);
