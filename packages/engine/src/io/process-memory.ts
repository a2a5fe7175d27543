import { limitArenas } from '@brickpost/posix';

/**
 * Allocator arenas a brickpost process keeps. glibc gives each thread that
 * meets contention an arena of its own (up to 8 per core) and keeps what was
 * freed in it; with libuv's pool of 16 threads and the native core's
 * workers, that held 40 MB of an ingest's 190 MB peak on the 512 MiB
 * benchmark dataset. Two arenas cost no measurable time there.
 */
export const ALLOCATOR_ARENAS = 2;

/**
 * Sets what a process running brickpost's jobs should have set before they
 * start (the CLI and the desktop's engine process call it first): the
 * allocator's arena cap. Does nothing where the C library has no such cap.
 */
export function tuneProcess(): void {
  limitArenas(ALLOCATOR_ARENAS);
}
