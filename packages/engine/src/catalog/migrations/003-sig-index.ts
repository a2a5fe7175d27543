/** Migration 003: an index so pruning unreferenced signatures does not scan every tree. Never edit after release. */
export default `
CREATE INDEX tree_files_sig ON tree_files (sig_id);
`;
