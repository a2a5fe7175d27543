/**
 * Ingesting: applying a shipment to a destination folder, DEST, so that it
 * becomes the shipment's tree (ingest.ts), and undoing that (rollback.ts).
 *
 * - *state* (DEST/.brickpost/state.json): the dataset DEST holds and the
 *   shipments applied to it, oldest first (state.ts); the truth about DEST.
 * - *journal* (DEST/.brickpost/journal.sqlite, DestDb in dest-db.ts): the
 *   *ops* of each applied shipment, the step in progress, and the scratch
 *   tables of the ingest being planned; every query of it is a DestDb method.
 * - *plan*: DEST's current tree (the *old tree*, old-tree.ts) against the
 *   shipment's; each entry is kept, staged, retired or linked, and what DEST
 *   lacks refuses the shipment with a *request* file (apply-plan.ts,
 *   request.ts).
 * - *staging*: new and changed files built in DEST/.brickpost/staging from
 *   the drive, DEST's own chunks and deltas (staged-files.ts,
 *   staging-writer.ts).
 * - *commit*: the journaled phases that move staged files in and retired
 *   ones out into the *undo area* (commit.ts); a crash is finished by the
 *   next run (*settle*, settle.ts; `brickpost resume`).
 * - *marker* (DEST/.brickpost/IN-PROGRESS): says a job has begun changing
 *   DEST and not finished (marker.ts, in-progress.ts).
 * - *policy*: what of the recorded attributes (modes, owners, ACLs…) is
 *   applied (policy.ts, attrs.ts, meta.ts).
 *
 * No re-exports: the engine imports each file where it needs it.
 */
export {};
