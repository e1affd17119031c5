#!/usr/bin/env python3
"""Run flow sets through SimGrid's flow-level network model set to plain
max-min sharing, for the cross-check in simgrid_test.go.

Usage: simgrid_maxmin.py INPUT.json, or python3 - INPUT.json with this script
on standard input (prints the result as JSON on stdout)

INPUT: {"t0": seconds, "cases": [{"caps": [bytes/s, ...],
                                  "flows": [{"bytes": n, "path": [resource index, ...],
                                             "start_us": µs}, ...]}, ...]}
OUTPUT: {"simgrid": version, "cases": [{"rates": [...], "finish": [...]}, ...]}

Every resource of a case becomes a shared SimGrid link of that bandwidth and
zero latency; every flow gets its own pair of hosts whose route is exactly its
path. Each case is its own network zone, so cases never share a link and one
simulation runs them all. Flows with start_us 0 start at time 0, and "rates"
are their (bytes - remaining) / t0 read at t0, which the caller picks before
any flow finishes or starts later (0 for the others); each later flow starts
at start_us; "finish" is each comm's finish time in seconds. A flow's
optional "weights" (whole numbers, one per path resource) repeat each link
that many times in its route: SimGrid adds a repeated link's consumption
weights, so the flow loads the link by that multiple of its rate.

The model is CM02 (max-min fair sharing) with every correction off: latency
and bandwidth factors 1, no weight given to a flow's RTT (weight-S 0, CM02's
default, set anyway), no cross traffic from acknowledgements (routes are
one-way here, so there would be none anyway), and tight numerical precisions:
maxmin/precision (bytes/s) 1e-9 instead of 1e-5, surf/precision (s) 1e-12
instead of 1e-9. The lazy update (SimGrid's default) re-solves only what
changed; it gives the same numbers as the full one here and runs 6x faster.
"""
import json
import sys

import simgrid
from simgrid import Actor, Comm, Engine, LinkInRoute, NetZone, this_actor

CFG = [
    "network/model:CM02",
    "network/latency-factor:1",
    "network/bandwidth-factor:1",
    "network/weight-S:0",
    "network/crosstraffic:0",
    "network/optim:Lazy",
    "maxmin/precision:1e-9",
    "surf/precision:1e-12",
]


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    engine = Engine(["simgrid_maxmin", "--log=root.thresh:warning"] + ["--cfg=" + c for c in CFG])
    root = NetZone.create_full_zone("root")
    comms_spec = []  # (case, flow, src host, dst host, bytes)
    for ci, case in enumerate(spec["cases"]):
        zone = NetZone.create_full_zone("case%d" % ci)
        zone.set_parent(root)
        links = []
        for ri, cap in enumerate(case["caps"]):
            link = zone.create_link("c%d-r%d" % (ci, ri), float(cap))
            link.set_latency(0)
            links.append(link.seal())
        for fi, fl in enumerate(case["flows"]):
            src = zone.create_host("c%d-f%d-src" % (ci, fi), 1e9).seal()
            dst = zone.create_host("c%d-f%d-dst" % (ci, fi), 1e9).seal()
            weights = fl.get("weights") or [1] * len(fl["path"])
            route = [LinkInRoute(links[r]) for r, w in zip(fl["path"], weights) for _ in range(w)]
            zone.add_route(src.netpoint, dst.netpoint, None, None, route, False)
            comms_spec.append((ci, fi, src, dst, int(fl["bytes"]), int(fl.get("start_us", 0))))
        zone.seal()
    root.seal()

    out = [{"rates": [0.0] * len(c["flows"]), "finish": [0.0] * len(c["flows"])} for c in spec["cases"]]
    t0 = float(spec["t0"])

    def driver():
        comms = [None] * len(comms_spec)
        first = [k for k, c in enumerate(comms_spec) if c[5] == 0]
        later = sorted((k for k, c in enumerate(comms_spec) if c[5] > 0), key=lambda k: (comms_spec[k][5], k))
        for k in first:
            _, _, s, d, b, _ = comms_spec[k]
            comms[k] = Comm.sendto_async(s, d, b)
        this_actor.sleep_until(t0)
        for k in first:
            ci, fi, _, _, b, _ = comms_spec[k]
            out[ci]["rates"][fi] = (b - comms[k].remaining) / t0
        for k in later:
            _, _, s, d, b, start_us = comms_spec[k]
            this_actor.sleep_until(start_us / 1e6)
            comms[k] = Comm.sendto_async(s, d, b)
        Comm.wait_all(comms)
        for k, (ci, fi, _, _, _, _) in enumerate(comms_spec):
            out[ci]["finish"][fi] = comms[k].finish_time

    Actor.create("driver", comms_spec[0][2], driver)
    engine.run()
    json.dump({"simgrid": simgrid.simgrid_version, "cases": out}, sys.stdout)


if __name__ == "__main__":
    main()
