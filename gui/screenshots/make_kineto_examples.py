#!/usr/bin/env python3
"""Writes the two hand-made PyTorch (Kineto) traces the viewer's screenshots of a memory lane and
of a job of many ranks are taken from (gui/README.md, "Regenerating the screenshots"):

  OUT/memory_kineto.json   one GPU, ten steps whose forward allocates 9 GiB of activations that
                           the backward frees ([memory] events with Total Allocated/Reserved),
                           on a 16 GiB device (deviceProperties.totalGlobalMem)
  OUT/job16/rank-R.json    sixteen ranks of forty steps: rank 5 computes 1.6x slower (a
                           straggler), rank 11 waits 2.5 ms for input every other step, and
                           steps 20-24 are slower on every rank

usage: make_kineto_examples.py OUT_DIR
"""
import json
import os
import sys

GIB = 1024 ** 3


def memory_trace():
    ev = []
    t, alloc = 1000.0, 2 * GIB
    for step in range(10):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1,
                   "tid": 1, "ts": t, "dur": 9000})
        for phase, op, kernel, sign in ((0, "aten::linear", "sm80_xmma_gemm_f32f32", 1),
                                        (4100, "aten::mm", "sm80_xmma_gemm_f32f32_bwd", -1)):
            for k in range(20):
                ts, cid = t + 100 + phase + k * 200, step * 100 + phase // 100 + k
                ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": ts,
                           "dur": 150, "args": {"External id": cid}})
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 1, "tid": 1, "ts": ts + 20, "dur": 10,
                           "args": {"correlation": cid, "External id": cid}})
                ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7,
                           "ts": ts + 40, "dur": 170,
                           "args": {"correlation": cid, "device": 0, "stream": 7}})
                alloc += sign * 0.45 * GIB
                ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                           "pid": 1, "tid": 1, "ts": ts + (5 if sign > 0 else 160),
                           "args": {"Device Type": 1, "Device Id": 0, "Addr": 1000 + k,
                                    "Bytes": int(sign * 0.45 * GIB),
                                    "Total Allocated": int(alloc),
                                    "Total Reserved": 14 * GIB}})
        t += 9000
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-16GB",
                                  "totalGlobalMem": 16 * GIB, "computeMajor": 8,
                                  "computeMinor": 0}],
            "traceEvents": ev}


def rank_trace(rank, world):
    ev, t = [], 1000.0
    for step in range(40):
        comp = 4000 * (1.6 if rank == 5 else 1.0) * (1.3 if 20 <= step < 25 else 1.0)
        inp = 2500 if rank == 11 and step % 2 == 0 else 200
        dur = inp + comp + 800
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                   "pid": rank, "tid": 1, "ts": t, "dur": dur})
        ev.append({"ph": "X", "cat": "user_annotation",
                   "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                   "pid": rank, "tid": 1, "ts": t + 10, "dur": inp})
        k0 = t + inp + 20
        for k in range(8):
            ts, cid = k0 + k * comp / 8, step * 100 + k
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": rank, "tid": 1,
                       "ts": ts, "dur": comp / 8 * 0.3, "args": {"External id": cid}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": rank,
                       "tid": 1, "ts": ts + 5, "dur": 8,
                       "args": {"correlation": cid, "External id": cid}})
            ev.append({"ph": "X", "cat": "kernel", "name": "implicit_convolve_sgemm",
                       "pid": rank, "tid": 7, "ts": ts + 15, "dur": comp / 8 * 0.9,
                       "args": {"correlation": cid, "device": 0, "stream": 7}})
        cid, ts = step * 100 + 50, k0 + comp
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": rank,
                   "tid": 1, "ts": ts, "dur": 8, "args": {"correlation": cid}})
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
                   "pid": rank, "tid": 7, "ts": ts + 10, "dur": 600,
                   "args": {"correlation": cid, "device": 0, "stream": 7}})
        t += dur + 50
    return {"schemaVersion": 1,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
            "deviceProperties": [{"id": 0, "name": "NVIDIA A100", "totalGlobalMem": 40 * GIB,
                                  "computeMajor": 8}],
            "traceEvents": ev}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "job16"), exist_ok=True)
    with open(os.path.join(out, "memory_kineto.json"), "w") as f:
        json.dump(memory_trace(), f)
    for r in range(16):
        with open(os.path.join(out, "job16", f"rank-{r}.json"), "w") as f:
            json.dump(rank_trace(r, 16), f)


if __name__ == "__main__":
    main()
