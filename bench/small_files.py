"""The small-files tree of make_dataset.py --files N (stdlib only).

N files of 0-4 KiB (uniform sizes; about half text-like and compressible,
half random bytes, 1 in 64 empty) in nested folders: FILE i is
``s<i // 100000>/t<(i // 1000) % 100>/u<(i // 100) % 10>/f<i>.<ext>``,
so a leaf folder holds 100 files and a million files make 10 top folders
and 10,000 leaves.  Deterministic: the same N and SEED give the same
names, bytes and mtimes (BASE_MTIME plus the file's index, in seconds).
It measures what a tool costs per file rather than per byte.
"""
import os
import random

WORDS = (b"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         b"sigma tau upsilon phi chi psi omega sample value index record field station level").split()


def small_path(i):
    ext = "txt" if i % 2 == 0 else "bin"
    return "s%02d/t%02d/u%d/f%07d.%s" % (i // 100000, (i // 1000) % 100, (i // 100) % 10, i, ext)


def small_content(rng, i):
    if i % 64 == 63:
        return b""
    size = rng.randrange(1, 4097)
    if i % 2 == 1:
        return rng.randbytes(size)
    out = bytearray()
    while len(out) < size:
        out += b" ".join(rng.choice(WORDS) for _ in range(12)) + b" %d\n" % rng.randrange(10 ** 6)
    return bytes(out[:size])


def generate_small(target, files, seed, base_mtime, log):
    """Writes the tree into TARGET; returns the summary make_dataset prints."""
    rng = random.Random("small-files:%d" % seed)
    total = 0
    made = set()
    for i in range(files):
        rel = small_path(i)
        d = os.path.join(target, os.path.dirname(rel))
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        data = small_content(rng, i)
        path = os.path.join(target, rel)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.utime(path, (base_mtime + i, base_mtime + i))
        total += len(data)
        if (i + 1) % 100000 == 0:
            log("  %d of %d files" % (i + 1, files))
    for dirpath, _, _ in os.walk(target, topdown=False):
        os.utime(dirpath, (base_mtime, base_mtime))
    return {"target": target, "files": files, "bytes": total, "folders": len(made), "seed": seed,
            "mode": "small-files", "sizes": "0-4 KiB"}
