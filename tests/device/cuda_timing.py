"""The one way the device scripts time GPU work: CUDA events around each
call, the device synchronised after it, so a figure is the GPU's time for
the call (host launch gaps included where the GPU waited on them)."""
import torch


def event_times_ms(fn, runs):
    """Milliseconds of each of `runs` calls of fn, in order."""
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times


def median_ms(fn, warmup=3, runs=10):
    """The median of runs calls' milliseconds, after warmup calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = sorted(event_times_ms(fn, runs))
    return times[len(times) // 2]


def run_or_refuse(report, where, measure):
    """measure()'s row added to report["runs"], or, where the back end does
    not take the shape (RuntimeError), where and why to report["refused"];
    the row or None. The allocator's cache is emptied either way."""
    try:
        row = measure()
    except RuntimeError as e:
        report["refused"].append(dict(where, why=str(e).splitlines()[0][:200]))
        row = None
    else:
        report["runs"].append(row)
    torch.cuda.empty_cache()
    return row
