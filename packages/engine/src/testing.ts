/**
 * `@brickpost/engine/testing`: test-only tools (crafted shipments, drive
 * mutations, testkit vectors). Never used by the engine itself.
 */
export * from './testing/index.js';
