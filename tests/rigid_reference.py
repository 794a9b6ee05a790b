"""A deliberately naive FCFS/EASY simulator written straight from the issue's semantics.

It shares no code with the engine or the policies: lists, linear scans, no
trees. Tests compare its start times with the fast implementation's, job by job.
"""

from __future__ import annotations


def reference_starts(submit, run, requested, procs, ids, n_procs, *, easy: bool, order: str = "fcfs"):
    """Start time of every job under strict FCFS (easy=False) or EASY (easy=True)."""
    n = len(submit)
    duration = [min(run[i], requested[i]) for i in range(n)]
    if order == "fcfs":
        key = lambda i: (submit[i], ids[i])  # noqa: E731
    else:
        key = lambda i: (requested[i], submit[i], ids[i])  # noqa: E731
    start = [None] * n
    running = []  # rows
    queue = []  # rows, kept sorted by key
    times = sorted(set(submit))
    submitted = set()
    t_index = 0
    now = None
    while True:
        ends = [start[j] + duration[j] for j in running]
        candidates = ends + ([times[t_index]] if t_index < len(times) else [])
        if not candidates:
            break
        now = min(candidates)
        running = [j for j in running if start[j] + duration[j] > now]  # completions first
        for i in range(n):  # then submissions
            if submit[i] == now and i not in submitted:
                submitted.add(i)
                queue.append(i)
        while t_index < len(times) and times[t_index] <= now:
            t_index += 1
        queue.sort(key=key)
        free = n_procs - sum(procs[j] for j in running)
        # FCFS head phase
        while queue and procs[queue[0]] <= free:
            j = queue.pop(0)
            start[j] = now
            running.append(j)
            free -= procs[j]
        if easy and queue:
            head = queue[0]
            by_end = sorted(running, key=lambda j: start[j] + requested[j])
            avail = free
            shadow = None
            for j in by_end:
                avail += procs[j]
                if avail >= procs[head]:
                    shadow = start[j] + requested[j]
                    break
            avail = free + sum(procs[j] for j in running if start[j] + requested[j] <= shadow)
            extra = avail - procs[head]
            for j in list(queue[1:]):
                if procs[j] <= free and (now + requested[j] <= shadow or procs[j] <= extra):
                    queue.remove(j)
                    start[j] = now
                    running.append(j)
                    free -= procs[j]
                    if now + requested[j] > shadow:
                        extra -= procs[j]
    return start
