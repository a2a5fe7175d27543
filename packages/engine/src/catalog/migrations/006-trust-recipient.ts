/**
 * Migration 006: a trusted party's age recipient, so a pack can be
 * encrypted to them by their name in the trust store (NULL: not known).
 * Never edit after release.
 */
export default `
ALTER TABLE trust ADD COLUMN recipient TEXT;
`;
