/**
 * The renderer's one way to the engine: `window.brickpost`, defined by the
 * Electron preload or by the browser bridge script of `brickpost ui`.
 */
import type { DesktopApi, DesktopError } from '../src/shared/api.js';

declare global {
  interface Window {
    brickpost?: DesktopApi;
  }
}

/** The API object; only call after `ready()` resolved. */
export function api(): DesktopApi {
  const a = window.brickpost;
  if (!a) throw new Error('the connection to brickpost is not available');
  return a;
}

/** Waits (up to 10 s) for the bridge to define `window.brickpost`. */
export async function ready(): Promise<DesktopApi> {
  for (let i = 0; i < 200 && !window.brickpost; i++) await new Promise((r) => setTimeout(r, 50));
  return api();
}

/** True when `e` is an API error with this code. */
export function isCode(e: unknown, ...codes: string[]): e is DesktopError {
  return typeof e === 'object' && e !== null && codes.includes(String((e as { code?: unknown }).code));
}
