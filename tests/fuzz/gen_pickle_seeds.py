#!/usr/bin/env python3
"""Write the pickle seed corpus for fuzz_pickle (tests/fuzz/corpus/pickle/).

Small snapshot-like dicts shaped like torch.cuda.memory._snapshot() (allocators.md section 4),
pickled with protocols 2..5, plus a few broken ones (truncated, class-loading opcode, wrong
top-level type, huge declared length, deep nesting). Run: python3 tests/fuzz/gen_pickle_seeds.py
"""
import os
import pickle
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "pickle")

S = 1 << 20
snap = {
    "segments": [
        {"device": 0, "address": 0x7F0000000000, "total_size": 2 * S, "allocated_size": 1024,
         "active_size": 1024, "requested_size": 1000, "stream": 0, "segment_type": "small",
         "blocks": [
             {"address": 0x7F0000000000, "size": 1024, "requested_size": 1000,
              "state": "active_allocated"},
             {"address": 0x7F0000000400, "size": 2 * S - 1024, "state": "inactive"},
         ]},
        {"device": 0, "address": 0x7F0000400000, "total_size": 20 * S, "stream": 94000,
         "segment_type": "large",
         "blocks": [{"address": 0x7F0000400000, "size": 20 * S, "state": "inactive"}]},
    ],
    "device_traces": [[
        {"action": "segment_alloc", "addr": 0x7F0003000000, "size": 2 * S, "stream": 0,
         "time_us": 1700000000000000},
        {"action": "alloc", "addr": 0x7F0003000000, "size": 512, "stream": 0,
         "time_us": 1700000000000010, "frames": [{"filename": "x.py", "line": 1, "name": "f"}]},
        {"action": "free_requested", "addr": 0x7F0003000000, "size": 512, "stream": 0},
        {"action": "free_completed", "addr": 0x7F0003000000, "size": 512, "stream": 0},
        {"action": "alloc", "addr": 0x7F0000400000, "size": 3 * S, "stream": 94000},
        {"action": "oom", "addr": 0, "size": 80 * S, "stream": 0, "device_free": 1024},
        {"action": "free_requested", "addr": 0x7F0000400000, "size": 3 * S, "stream": 94000},
        {"action": "free_completed", "addr": 0x7F0000400000, "size": 3 * S, "stream": 94000},
        {"action": "segment_free", "addr": 0x7F0003000000, "size": 2 * S, "stream": 0},
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0},
    ]],
    "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1},
}
empty = {"segments": [], "device_traces": [[]]}
two_dev = {"segments": [], "device_traces": [[], snap["device_traces"][0][:4]]}


def w(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    for p in (2, 3, 4, 5):
        w("snap_p%d.pkl" % p, pickle.dumps(snap, protocol=p))
    w("empty_p2.pkl", pickle.dumps(empty, protocol=2))
    w("twodev_p4.pkl", pickle.dumps(two_dev, protocol=4))
    w("scalars_p3.pkl", pickle.dumps({"segments": [], "device_traces": [[]],
                                      "x": (1.5, True, None, b"ab", {1, 2}, -5, 2 ** 40)},
                                     protocol=3))
    good = pickle.dumps(snap, protocol=4)
    # broken: truncated, wrong top-level type, class loading, huge length, deep nesting
    w("bad_truncated.pkl", good[: len(good) // 2])
    w("bad_toplevel_list.pkl", pickle.dumps([1, 2, 3], protocol=4))
    w("bad_global.pkl", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.")
    w("bad_huge_len.pkl", b"\x80\x04\x8d" + struct.pack("<Q", 1 << 62) + b"abc.")
    w("bad_deep.pkl", b"\x80\x02" + b"]" * 1500 + b"a" * 1499 + b".")
    w("bad_marks.pkl", b"\x80\x02" + b"(" * 1500 + b".")
    w("bad_memo.pkl", b"\x80\x02h\x07.")
    w("bad_no_stop.pkl", b"\x80\x02}q\x00")


if __name__ == "__main__":
    main()
