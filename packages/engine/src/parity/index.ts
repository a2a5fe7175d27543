/**
 * Parity: Reed-Solomon erasure coding of data over GF(2^8), so that lost
 * or unreadable parts of a drive can be rebuilt from what remains.
 *
 * A *stripe* is a group of k *data shares* (byte strings of one length,
 * shorter ones zero-padded) protected by m *parity shares*; together they
 * are the k + m shares of a *(k, m) code*, numbered 0 … k−1 (data) and
 * k … k+m−1 (parity). Parity *row* j is share k+j. Any k shares of a
 * stripe rebuild the others (*reconstruction*). The field is ISA-L's
 * (polynomial 0x11d, generator 2) and the parity rows are ISA-L's Cauchy
 * matrix, so the parity bytes are those of gf_gen_cauchy1_matrix.
 * An *accumulator* is an output that many products c · source are added
 * into, one source at a time (the recovery rows of a window).
 */
export { gfMul, gfInv } from './gf.js';
export { cauchy, mulAdd, combine, encodeParity, reconstructionMatrix, reconstruct } from './rs.js';
export { Accumulators } from './accumulators.js';
