/**
 * rebuild/: a lost drive of a set written again onto a new drive
 * (`brickpost rebuild-drive`). It sits above drive/ (the lost share is
 * computed from the others' parity there), verify/ (the new drive is
 * checked as verify checks one before it takes its place) and custody/
 * (a `rebuilt` event says from which drives, by whom).
 *
 * - member: one drive of a set, data (1..k) or parity (k+1..n);
 * - peers: the other drives' signed tag files and recovery headers every
 *   drive of a set carries under `peers/`, from which a lost drive's own
 *   are taken;
 * - part: the new drive's bag is written under a `.part` name and renamed
 *   only once it verifies.
 */
export {};
