/**
 * Recovering this home's catalog (`brickpost catalog recover`): a damaged
 * catalog file is set aside and its readable rows salvaged into a new one;
 * what it lost is rebuilt from outside it (rebuild.ts).
 *
 * - rebuilt: a row brought back from the home's key files, a destination's
 *   state or a drive's bag.
 * - lost: rows of a table neither salvaged nor rebuilt, with what losing
 *   them means and what to do.
 *
 * It stands above catalog/ and the folders it reads (custody/, drive/,
 * ingest/, keys/, verify/), which the catalog itself must not import.
 */
export { recoverCatalog } from './recover.js';
