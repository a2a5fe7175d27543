#!/usr/bin/env python3
"""Run one command and report what it cost, as JSON.

    rusage.py OUT.json [--sync DIR] -- COMMAND [ARG...]

Terms:
  wall          seconds from spawn to exit, plus the flush below when --sync
  flush         seconds of `sync -f DIR` after the command, so that a tool
                which leaves its output in the page cache pays for writing it
                like one that fsyncs
  user, sys     CPU seconds of the command and every descendant it waited
                for (wait4 rusage, which Linux sums over the reaped subtree)
  max_rss_kib   largest resident set of any single process in the tree
                (wait4 ru_maxrss; exact, but a pipeline's stages run at the
                same time, hence the next two)
  tree_rss_kib  peak of the summed resident sets of the whole tree, sampled
                from /proc every 50 ms
  stage_rss_kib peak resident set sampled per command name (tar, zstd, ...)

The command's stdin, stdout and stderr are this process's own.
"""

import json
import os
import subprocess
import sys
import threading
import time

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
INTERVAL = 0.05


def parents():
    """Map pid -> (ppid, comm) for every process still readable in /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        # comm is parenthesised and may itself contain spaces or parentheses.
        close = stat.rfind(")")
        table[int(name)] = (int(stat[close + 2:].split()[1]), stat[stat.find("(") + 1:close])
    return table


def rss_kib(pid):
    """Resident set of one process, 0 once it is gone."""
    try:
        with open("/proc/%d/statm" % pid, "rb") as f:
            return int(f.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


class Sampler(threading.Thread):
    """Samples the RSS of a process tree until stopped."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root = root
        self.tree_peak = 0
        self.stage_peak = {}
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            table = parents()
            children = {}
            for pid, (ppid, _) in table.items():
                children.setdefault(ppid, []).append(pid)
            total, todo = 0, [self.root]
            while todo:
                pid = todo.pop()
                rss = rss_kib(pid)
                total += rss
                comm = table.get(pid, (0, "?"))[1]
                if rss > self.stage_peak.get(comm, 0):
                    self.stage_peak[comm] = rss
                todo.extend(children.get(pid, ()))
            self.tree_peak = max(self.tree_peak, total)
            self.stop.wait(INTERVAL)


def main(argv):
    if "--" not in argv or len(argv) < 3:
        sys.exit("usage: rusage.py OUT.json [--sync DIR] -- COMMAND [ARG...]")
    sep = argv.index("--")
    opts, cmd = argv[:sep], argv[sep + 1:]
    out = opts[0]
    sync_dir = opts[opts.index("--sync") + 1] if "--sync" in opts else None

    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    sampler = Sampler(child.pid)
    sampler.start()
    _, status, ru = os.wait4(child.pid, 0)
    t1 = time.monotonic()
    sampler.stop.set()
    sampler.join()
    child.returncode = os.waitstatus_to_exitcode(status)

    flush = 0.0
    if sync_dir is not None:
        subprocess.run(["sync", "-f", sync_dir], check=False)
        flush = time.monotonic() - t1

    result = dict(
        exit_code=child.returncode,
        wall=round(t1 - t0 + flush, 3),
        flush=round(flush, 3),
        user=round(ru.ru_utime, 3),
        sys=round(ru.ru_stime, 3),
        max_rss_kib=ru.ru_maxrss,
        tree_rss_kib=max(sampler.tree_peak, ru.ru_maxrss),
        stage_rss_kib=dict(sorted(sampler.stage_peak.items(), key=lambda kv: -kv[1])),
    )
    with open(out, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
