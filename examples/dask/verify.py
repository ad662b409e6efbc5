#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""verify.py --scheduler ADDRESS PATH... [--junit FILE] [--ship] [--workers N] [--chunk K]

Verifies every recording under the paths (*.replay, and *.qpin pairs with their NAME.qps) on a
Dask distributed cluster, each worker running the qphys Python package, and prints the report
`qphys verify` prints: one line per file, then the summary; --junit writes the same JUnit file.
Exit status as qphys verify's: 0 all matched, 1 one diverged, 2 one damaged or of another
version. docs/scale.md says how to run a cluster.

The files are listed and sorted here (qphys.find_recordings: the order of qphys verify). By
default each worker reads the files itself (a file system shared by the cluster, the same
paths everywhere); with --ship this process reads them and sends their bytes. --workers N
waits until N workers have joined before starting. Files go out in chunks of K (default 8),
so a task is worth its scheduling.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import qphys
from distributed import Client, get_worker


Done = Tuple[str, float, List[qphys.VerifyResult]]   # the worker, its CPU seconds, the verdicts


def _on_worker(verdicts) -> Done:
    t0 = time.thread_time()
    out = list(verdicts)
    return get_worker().address, time.thread_time() - t0, out


def verify_chunk(paths: Sequence[str]) -> Done:
    """On a worker: verify files it can read."""
    return _on_worker(qphys.verify_file(p) for p in paths)


def verify_shipped(items: Sequence[Tuple[str, bytes, Optional[bytes]]]) -> Done:
    """On a worker: verify recordings sent as bytes (path, data, the pair's snapshot or None)."""
    return _on_worker(qphys.verify_bytes(path, data, snap) for path, data, snap in items)


def ship(client: Client, chunks: List[List[str]]) -> List[Done]:
    """Read each chunk's files here and verify their bytes on the workers; a file this process
    cannot read is judged here (damaged: cannot read), as qphys verify judges it."""
    futures = []
    local: List[List[Optional[qphys.VerifyResult]]] = []
    for chunk in chunks:
        items, mine = [], []
        for p in chunk:
            try:
                data, snap = qphys.read_recording(p)
                items.append((p, data, snap))
                mine.append(None)
            except OSError:
                mine.append(qphys.verify_file(p))
        futures.append(client.submit(verify_shipped, items, pure=False))
        local.append(mine)
    out = []
    for mine, (worker, cpu, remote) in zip(local, client.gather(futures)):
        it = iter(remote)
        out.append((worker, cpu, [r if r is not None else next(it) for r in mine]))
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="qphys verify on a Dask cluster")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--scheduler", required=True, help="the scheduler's address, e.g. tcp://10.0.0.5:8786")
    ap.add_argument("--junit", help="write a JUnit XML file")
    ap.add_argument("--ship", action="store_true", help="send the files' bytes (no shared file system)")
    ap.add_argument("--workers", type=int, default=0, help="wait for this many workers first")
    ap.add_argument("--chunk", type=int, default=8, help="files per task")
    a = ap.parse_args(argv)
    try:
        files = qphys.find_recordings(a.paths)
    except FileNotFoundError as e:
        print(f"verify.py: {e}: no such file or directory", file=sys.stderr)
        return 2
    if not files:
        print("verify.py: no recordings (*.replay, *.qpin) under the paths given", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    with Client(a.scheduler) as client:
        if a.workers:
            client.wait_for_workers(a.workers, timeout=120)
        chunks = [files[i:i + a.chunk] for i in range(0, len(files), a.chunk)]
        if a.ship:
            done = ship(client, chunks)
        else:
            done = client.gather(client.map(verify_chunk, chunks, pure=False))
        results = [r for _, _, chunk in done for r in chunk]
        workers = len(client.scheduler_info()["workers"])
    sys.stdout.write(qphys.report(results))
    sys.stdout.flush()
    cpu: Dict[str, float] = {}
    for worker, seconds, _ in done:
        cpu[worker] = cpu.get(worker, 0.0) + seconds
    # The busiest worker's CPU time is the wall time on free cores: what more workers buy.
    print(f"verify.py: {len(results)} files in {time.monotonic() - t0:.2f} s on {workers} Dask workers; "
          f"{sum(cpu.values()):.2f} CPU s verifying in all, {max(cpu.values()):.2f} in the busiest "
          f"({len(cpu)} used)", file=sys.stderr)
    if a.junit:
        with open(a.junit, "w") as f:
            f.write(qphys.junit(results))
    return qphys.exit_status(results)


if __name__ == "__main__":
    sys.exit(main())
