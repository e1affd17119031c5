#!/usr/bin/env bash
# repro-flow.sh: re-run every paper preset that REPRODUCTION.md's rows come
# from under the fixed-rate network model and under the flow model
# (samples/experiments/*-flow.toml), report them, and print one line per
# REPRODUCTION.md row: the row's label, the fixed model's value, the flow
# model's value, in the form the row quotes them. Then the isolation runs
# (*-flow-parts.toml) that the rows' "what flow changed, and why" rest on.
#
#   scripts/repro-flow.sh [OUT]        # OUT defaults to runs/repro-flow
#
# Environment:
#   REPRO_FLOW_ONLY="eas coupling-grep"  run only these presets (fixed and flow
#                                        of each; names as in the list below)
#   REPRO_FLOW_PARTS=0                   skip the isolation runs
#   REPRO_FLOW_REUSE=1                   do not re-run a preset whose results
#                                        are already in OUT (report only)
#
# Writes OUT/bin (replay, report), OUT/runs/<preset> (results),
# OUT/report/<preset>.txt (what `report --preset` prints; no figures: they
# cost CPU), OUT/cpu.txt (CPU seconds per preset) and prints the summary
# (also OUT/summary.txt). Needs go, python3 (standard library only) and, for
# the CPU times, /usr/bin/time. Deterministic: the same commit prints the same
# numbers (CPU times aside). After h-flowcost (989cda3) it took 207 CPU s
# (user+sys), 193 s of it in replay, most in hybsmrp-flow (124 s); with shared
# disks before h-flowcost 783 CPU s, and 338 before disks were shared.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/runs/repro-flow}
mkdir -p "$out/bin" "$out/runs" "$out/report"
out=$(cd "$out" && pwd)
cd "$repo"

go build -o "$out/bin/" ./cmd/replay ./cmd/report
replay=$out/bin/replay
report=$out/bin/report

# preset  report-preset(s)
presets=(
  "eas eas"
  "hybsmrp hybsmrp"
  "hybsmrp-alone hybsmrp"
  "coupling-twojobs coupling"
  "coupling-grep coupling"
  "coupling-single coupling"
  "coupling-wordcount coupling"
  "coupling-table3 coupling"
  "coupling-table4 coupling"
  "coupling-batches coupling"
  "hpfsp-fig2 hpfsp"
  "hpfsp-fig3a hpfsp"
  "hpfsp-fig3b hpfsp,coupling"
)
parts=(
  "eas-flow-parts eas"
  "coupling-grep-flow-parts coupling"
  "coupling-table4-flow-parts coupling"
  "coupling-batches-flow-parts coupling"
  "hybsmrp-alone-flow-parts hybsmrp"
)

: > "$out/cpu.txt"
run() { # run NAME REPORTPRESETS
  local name=$1 rps=$2 spec=samples/experiments/$1.toml
  if [[ ! -f $spec ]]; then echo "repro-flow: missing $spec" >&2; exit 1; fi
  if [[ ${REPRO_FLOW_REUSE:-0} == 1 && -f $out/runs/$name/manifest.json ]]; then
    echo "repro-flow: $name: reusing $out/runs/$name" >&2
  else
    echo "repro-flow: $name ..." >&2
    if [[ -x /usr/bin/time ]]; then
      /usr/bin/time -f "$name %U %S %M" -o "$out/runs/$name.time" \
        "$replay" --experiment "$spec" --out "$out/runs/$name" --quiet --force
      awk '{printf "%-30s %8.2f CPU s (user %s + sys %s), %d KiB max RSS\n", $1, $2+$3, $2, $3, $4}' \
        "$out/runs/$name.time" >> "$out/cpu.txt"
    else
      "$replay" --experiment "$spec" --out "$out/runs/$name" --quiet --force
    fi
  fi
  : > "$out/report/$name.txt"
  local rp
  for rp in ${rps//,/ }; do
    "$report" --preset "$rp" "$out/runs/$name" >> "$out/report/$name.txt" 2>&1
  done
}

want() { [[ -z ${REPRO_FLOW_ONLY:-} ]] || [[ " $REPRO_FLOW_ONLY " == *" $1 "* ]]; }

for p in "${presets[@]}"; do
  set -- $p
  want "$1" || continue
  run "$1" "$2"
  run "$1-flow" "$2"
done
if [[ ${REPRO_FLOW_PARTS:-1} != 0 ]]; then
  for p in "${parts[@]}"; do
    set -- $p
    run "$1" "$2"
  done
fi

python3 - "$out/report" <<'PY' | tee "$out/summary.txt"
import os, re, sys

rdir = sys.argv[1]

def text(name):
    p = os.path.join(rdir, name + ".txt")
    return open(p).read() if os.path.exists(p) else None

def cols(line):
    return re.split(r"\s{2,}", line.strip())

def f1(x): return f"{x:.1f}"
def pct(x): return f"{x:+.1f}%".replace("+-", "-").replace("-", "−")

def show(label, fixed, flow):
    print(f"{label}: fixed {fixed} | flow {flow}")

# ---------------------------------------------------------------- EAS
def eas_table(t):
    """{(fig, hw, r): {policy: value}} from report --preset eas."""
    pols = ["EAS", "FIFO-BE", "FIFO-S", "HFS-BE", "HFS-S"]
    res, hashw = {}, False
    for line in t.splitlines():
        if line.startswith("figure"):
            hashw = " hw " in line
        m = re.match(r"(Fig\. \d) [a-z]", line)
        if not m: continue
        c = cols(line)
        if hashw: hw, r, vals = c[1], int(c[2]), c[4:]
        else: hw, r, vals = "", int(c[1]), c[3:]
        res[(m.group(1), hw, r)] = {p: float(vals[2*i]) for i, p in enumerate(pols)}
    return res

def eas_rows(tf, tw):
    F, W = eas_table(tf), eas_table(tw)
    def fig3(T):
        return (f"EAS/FIFO-S/HFS-S min {f1(min(min(T[('Fig. 3','',r)][p] for p in ('EAS','FIFO-S','HFS-S')) for r in range(1,8)))}%; "
                f"FIFO-BE {f1(T[('Fig. 3','',1)]['FIFO-BE'])}% → {f1(T[('Fig. 3','',7)]['FIFO-BE'])}%; "
                f"HFS-BE {f1(T[('Fig. 3','',1)]['HFS-BE'])}% → {f1(T[('Fig. 3','',7)]['HFS-BE'])}%")
    show("EAS Fig. 3 locality", fig3(F), fig3(W))
    def fig4(T):
        a, b = T[('Fig. 4','',1)], T[('Fig. 4','',7)]
        return (f"r=1 strict {a['FIFO-S']:.3f}/{a['HFS-S']:.3f}, best-effort {a['FIFO-BE']:.3f}/{a['HFS-BE']:.3f}, "
                f"EAS {a['EAS']:.3f}; r=7 EAS {b['EAS']:.3f} (others {min(v for p,v in b.items() if p!='EAS'):.3f}–{max(v for p,v in b.items() if p!='EAS'):.3f})")
    show("EAS Fig. 4 load balance", fig4(F), fig4(W))
    for fig, name in (("Fig. 5", "map throughput MB/s"), ("Fig. 6", "reduce throughput MB/s")):
        def rng(T):
            vals = [v for r in range(1,8) for v in T[(fig,'',r)].values()]
            s = []
            for r in (1, 7):
                d = T[(fig,'',r)]
                lo, hi = min(d.values()), max(d.values())
                top = max(d, key=d.get)
                s.append(f"r={r} {f1(lo)}–{f1(hi)} (spread {100*(hi/lo-1):.1f}%, highest {top}, EAS {f1(d['EAS'])})")
            return f"all {f1(min(vals))}–{f1(max(vals))}; " + "; ".join(s)
        show(f"EAS {fig} {name}", rng(F), rng(W))
    def fig7(T):
        h = [T[('Fig. 7','',r)][p] for r in range(1,8) for p in ('HFS-BE','HFS-S')]
        fi = [T[('Fig. 7','',r)][p] for r in range(1,8) for p in ('FIFO-BE','FIFO-S')]
        return (f"HFS {min(h):,.0f}–{max(h):,.0f} s, EAS {T[('Fig. 7','',1)]['EAS']:,.0f} → {T[('Fig. 7','',7)]['EAS']:,.0f} s, "
                f"FIFO {min(fi):,.0f}–{max(fi):,.0f} s")
    show("EAS Fig. 7 total flowtime", fig7(F), fig7(W))

def eas_parts(t):
    T = eas_table(t)
    for fig in ("Fig. 5", "Fig. 6"):
        for r in (1, 7):
            a, b = T[(fig,'eas:fixed-1rslot',r)], T[(fig,'eas:flow-1rslot',r)]
            show(f"  [eas-flow-parts] {fig} r={r}, 1 reduce slot per machine (EAS FIFO-BE FIFO-S HFS-BE HFS-S)",
                 " ".join(f1(v) for v in a.values()), " ".join(f1(v) for v in b.values()))
            for hw, what in (("eas:flow-disk3000", "flow, disks 3,000 MB/s"), ("eas:flow-nic3000", "flow, NICs 3,000 MB/s"),
                             ("eas:flow-nic3000-disk3000", "flow, disks and NICs 3,000 MB/s"),
                             ("eas:fixed-nic3000-disk3000", "fixed, disks and NICs 3,000 MB/s")):
                c = T.get((fig, hw, r))
                if c:
                    print(f"  [eas-flow-parts] {fig} r={r}, 2 reduce slots, {what} (EAS FIFO-BE FIFO-S HFS-BE HFS-S): "
                          + " ".join(f1(v) for v in c.values()))

# ---------------------------------------------------------------- HybSMRP
def hyb_table(t):
    """{(table-label, trace, rowkey, hw): [values of FIFO, Fair, HybSMRP(, SJF)]}"""
    res, hashw = {}, False
    for line in t.splitlines():
        if line.startswith("table "):
            hashw = " hw " in line
        if not re.match(r"(Table \d )?(locality|completion)", line): continue
        c = cols(line)
        if hashw: label, hw, trace, key, vals = c[0], c[1], c[2], c[3], c[5:]
        else: label, hw, trace, key, vals = c[0], "", c[1], c[2], c[4:]
        res[(label, trace, key, hw)] = [None if v == "-" else float(v) for v in vals[0::2]]
    return res

def hyb_rows(tf, tw):
    F, W = hyb_table(tf), hyb_table(tw)
    for lab, tr, name in (("Table 4 locality (%)", "wordcount", "Table 4 locality, Wordcount (mean of rows)"),
                          ("Table 5 locality (%)", "terasort", "Table 5 locality, Terasort (mean of rows)")):
        g = lambda T: " / ".join(f1(v) for v in T[(lab, tr, "average", "")][:3]) + "%"
        show(f"HybSMRP {name} FIFO/Fair/HybSMRP", g(F), g(W))
    def g(T, tr):
        vs = T[("completion (s)", tr, "vs FIFO", "")]
        return (" / ".join(f1(v) for v in T[("completion (s)", tr, "average", "")][:3])
                + f" s (vs FIFO, positive faster: Fair {vs[1]:+.1f}%, HybSMRP {vs[2]:+.1f}%)")
    show("HybSMRP completion under load, Wordcount FIFO/Fair/HybSMRP", g(F, "wordcount"), g(W, "wordcount"))
    show("HybSMRP completion under load, Terasort FIFO/Fair/HybSMRP", g(F, "terasort"), g(W, "terasort"))

def hyb_alone_rows(tf, tw):
    F, W = hyb_table(tf), hyb_table(tw)
    for lab, tr, name in (("Table 6 completion (s)", "wordcount", "Table 6 Wordcount alone"),
                          ("Table 7 completion (s)", "terasort", "Table 7 Terasort alone")):
        def g(T):
            vf = T[(lab, tr, "vs FIFO", "")][2]; va = T[(lab, tr, "vs Fair", "")][2]
            avg = T[(lab, tr, "average", "")]; big = T[(lab, tr, "650", "")]
            word = lambda v: f"{abs(v):.1f}% " + ("faster" if v > 0 else "slower")
            return (f"HybSMRP vs FIFO {word(vf)} / vs Fair {word(va)} "
                    f"(mean completion FIFO/Fair/HybSMRP {' / '.join(f1(v) for v in avg)} s; 650 maps {' / '.join(f1(v) for v in big)} s)")
        show(f"HybSMRP {name}", g(F), g(W))

def hyb_parts(t):
    T = hyb_table(t)
    for lab, tr in (("Table 6 completion (s)", "wordcount"), ("Table 7 completion (s)", "terasort")):
        g = lambda hw: (" / ".join(f1(v) for v in T[(lab, tr, "650", hw)]) + " s"
                        + f" (HybSMRP vs FIFO {T[(lab, tr, 'vs FIFO', hw)][2]:+.1f}%, positive faster)")
        show(f"  [hybsmrp-alone-flow-parts] {tr} 650 maps alone, NIC 12.5 MB/s, FIFO/Fair/HybSMRP",
             g("hybsmrp:fixed-nic12.5"), g("hybsmrp:flow-nic12.5"))

# ---------------------------------------------------------------- Coupling
def cp_mean(t):
    """{workload-on-hw: (fair, coupling-pct, {label: pct})}"""
    res = {}
    for m in re.finditer(r"^(\S+ on \S+): mean processing time: Fair ([\d.]+) ± [\d.]+ min; (.*)$", t, re.M):
        d = {k: float(v) for k, v in re.findall(r"(Coupling(?: β=[\d.]+)?|Hpfsp [\w=-]+) [\d.]+ ± [\d.]+ min \(([-+\d.]+)%\)", m.group(3))}
        res[m.group(1)] = d
    return res

def cp_single(t):
    return {m.group(1): float(m.group(2)) for m in re.finditer(
        r"^(\S+) on \S+: processing time, mean ± 95% half-width \[range over seeds\]: .*\(([-+\d.]+)%\)\.$", t, re.M)}

def cp_jobs(t, where):
    """per-job rows of the first per-job table: {(hw-prefix, job): [numbers]}"""
    res = {}
    for line in t.splitlines():
        m = re.match(r"^(?:(\S+ on \S+)\s+)?\s*(\d+|all)\s{2,}", line)
        if not m or "min" in line[:5]: continue
        c = cols(line)
        if m.group(1): c = c[1:]
        try:
            nums = [None if x == "-" else float(x) for x in c[5:]]
        except ValueError:
            continue
        res[(m.group(1) or where, c[0])] = nums
    return res

def cp_net(t, key):
    m = re.search(re.escape(key) + r": network \(Fig\. 14\).*?: Fair ([\d.]+) ± [\d.]+ MB, ([\d.]+) ± [\d.]+ GB; Coupling ([\d.]+) ± [\d.]+ MB, ([\d.]+)", t)
    return m.groups() if m else ("?", "?", "?", "?")  # no network line (no bytes moved between nodes)

def coupling_rows(name, tf, tw):
    F, W = cp_mean(tf), cp_mean(tw)
    P = lambda d, k: pct(d.get(k, float("nan")))
    if name == "coupling-twojobs":
        def g(t, M):
            j = cp_jobs(t, "")
            s2 = [v for k, v in j.items() if k[1] == "2"][0]
            return f"job 2 starvation Fair {s2[2]:.2f} min → Coupling {s2[6]:.2f} min; mean processing time {P(M['twojobs on coupling-set-a'], 'Coupling')}"
        show("Coupling Figs. 1–2 two jobs", g(tf, F), g(tw, W))
    elif name == "coupling-grep":
        k = "grep10 on coupling-8node"
        g = lambda M, t: f"{P(M[k], 'Coupling')} (bytes moved between nodes Fair/Coupling {cp_net(t, k)[1]}/{cp_net(t, k)[3]} GB)"
        show("Coupling Figs. 5–6 ten Grep jobs", g(F, tf), g(W, tw))
    elif name == "coupling-single":
        g = lambda t: ", ".join(f"{k} {pct(v)}" for k, v in cp_single(t).items())
        show("Coupling Fig. 12 single jobs", g(tf), g(tw))
    elif name == "coupling-wordcount":
        k = "wordcount on coupling-set-b"
        g = lambda M: f"β=0.1 {P(M[k], 'Coupling β=0.1')} / β=0.5 {P(M[k], 'Coupling β=0.5')} (auto β {P(M[k], 'Coupling')})"
        show("Coupling Figs. 10–11 β = 0.1 / 0.5", g(F), g(W))
    elif name == "coupling-table3":
        k = "table3 on coupling-set-b"
        show("Coupling Table III", P(F[k], 'Coupling'), P(W[k], 'Coupling'))
        g = lambda t: "Fair {} → Coupling {} MB per 10 s".format(*[cp_net(t, k)[i] for i in (0, 2)])
        show("Coupling Fig. 14 busiest node's traffic", g(tf), g(tw))
        def loc(t):
            a = [v for kk, v in cp_jobs(t, k).items() if kk[1] == "all"][0]
            # all row: T, ±, L, ± per policy: Fair, Coupling, β=0.1, β=0.5
            return f"local maps per job Fair {a[2]:.1f}, β=0.1 {a[10]:.1f}, β=0.5 {a[14]:.1f}"
        show("Coupling Fig. 15 local maps", loc(tf), loc(tw))
    elif name == "coupling-table4":
        g = lambda M: f"set B {P(M['table4 on coupling-set-b'], 'Coupling')} / set A {P(M['table4 on coupling-set-a'], 'Coupling')}"
        show("Coupling Table IV", g(F), g(W))
        def starv(t):
            j = cp_jobs(t, "")
            fa = [j[("table4 on coupling-set-a", str(i))][2] for i in range(3, 8)]
            co = [j[("table4 on coupling-set-a", str(i))][6] for i in range(3, 8)]
            return f"set A Fair starves jobs 3–7 by {', '.join(f'{v:.1f}' for v in fa)} min, Coupling max {max(co):.1f}"
        show("Coupling Table IV starvation", starv(tf), starv(tw))
    elif name == "coupling-batches":
        show("Coupling Fig. 16 200 jobs", P(F["batches on coupling-set-c"], "Coupling"), P(W["batches on coupling-set-c"], "Coupling"))

def coupling_parts(name, t):
    M = cp_mean(t)
    if name == "coupling-grep-flow-parts":
        for v, what in (("nic12.5", "NIC 12.5 MB/s"), ("model", "modelled map times"),
                        ("model-disk10", "modelled map times, disks 10 MB/s"), ("model-nic12.5", "modelled map times, NIC 12.5 MB/s")):
            f, w = M.get(f"grep10 on coupling-8node:fixed-{v}"), M.get(f"grep10 on coupling-8node:flow-{v}")
            if f and w:
                show(f"  [coupling-grep-flow-parts] Figs. 5–6, {what}", pct(f["Coupling"]), pct(w["Coupling"]))
    elif name == "coupling-table4-flow-parts":
        show("  [coupling-table4-flow-parts] Table IV set B, NIC 1,250 MB/s",
             pct(M["table4 on coupling-set-b:fixed-nic1250"]["Coupling"]), pct(M["table4 on coupling-set-b:flow-nic1250"]["Coupling"]))
    else:
        for hw in ("coupling-set-c:flow-core4", "coupling-set-c:flow-uplink125"):
            print(f"  [coupling-batches-flow-parts] Fig. 16 on {hw}: flow {pct(M['batches on ' + hw]['Coupling'])}")

# ---------------------------------------------------------------- H-PFSP
def hp_table(t):
    res = {}
    for line in t.splitlines():
        m = re.match(r"^(fair|hpfsp\S*)\s{2,}(\S+)\s{2,}(\d+)\s{2,}([\d.]+)\s{2,}([\d.]+)$", line)
        if m: res[(m.group(1), m.group(2))] = float(m.group(4))
    return res

def hpfsp_rows(name, tf, tw):
    F, W = hp_table(tf), hp_table(tw)
    if name == "hpfsp-fig2":
        g = lambda T: (f"Fair {T[('fair','10')]:.0f} s; K=2 {T[('hpfsp:fair-limit=2','10')]:.0f} s, K=5 {T[('hpfsp:fair-limit=5','10')]:.0f} s at 10 jobs; "
                       f"1 job Fair {T[('fair','1')]:.1f} vs K=2 {T[('hpfsp:fair-limit=2','1')]:.1f} s")
        show("H-PFSP Fig. 2", g(F), g(W))
    elif name == "hpfsp-fig3a":
        def g(T):
            f5, k5 = T[('fair','terasort-5g')], T[('hpfsp:fair-limit=2','terasort-5g')]
            f1_, k1 = T[('fair','terasort-1g')], T[('hpfsp:fair-limit=2','terasort-1g')]
            return f"5 GB Fair {f5:.0f} s, K=2 {k5:.0f} s ({pct(100*(k5/f5-1))}); 1 GB {pct(100*(k1/f1_-1))}"
        show("H-PFSP Fig. 3(a)", g(F), g(W))
    elif name == "hpfsp-fig3b":
        def g(t, T):
            j = cp_jobs(t, "")
            r1 = [v for k, v in j.items() if k[1] == "1"][0]; r5 = [v for k, v in j.items() if k[1] == "5"][0]
            return (f"1 GB / 5 GB job Fair {r1[0]:.2f}/{r5[0]:.2f} min → K=2 {r1[4]:.2f}/{r5[4]:.2f} min; "
                    f"mean Fair {T[('fair','–')]:.1f}, K=2 {T[('hpfsp','2')]:.1f} s")
        show("H-PFSP Fig. 3(b)", g(tf, F), g(tw, W))

print()
print("repro-flow summary: one line per REPRODUCTION.md row, the fixed-rate model's value | the flow model's")
print()
for name, fn in (("eas", eas_rows), ("hybsmrp", hyb_rows), ("hybsmrp-alone", hyb_alone_rows)):
    a, b = text(name), text(name + "-flow")
    if a and b: fn(a, b)
for name in ("coupling-twojobs", "coupling-grep", "coupling-single", "coupling-wordcount",
             "coupling-table3", "coupling-table4", "coupling-batches"):
    a, b = text(name), text(name + "-flow")
    if a and b: coupling_rows(name, a, b)
for name in ("hpfsp-fig2", "hpfsp-fig3a", "hpfsp-fig3b"):
    a, b = text(name), text(name + "-flow")
    if a and b: hpfsp_rows(name, a, b)
print("H-PFSP Figs. 4–5, protectiveness; BAR: not run with flow (the papers' own simulators: no transfers to share)")
isol = [(n, text(n)) for n in ("eas-flow-parts", "coupling-grep-flow-parts", "coupling-table4-flow-parts",
                               "coupling-batches-flow-parts", "hybsmrp-alone-flow-parts")]
if any(t for _, t in isol):
    print()
    print("isolation runs (*-flow-parts.toml):")
    for n, t in isol:
        if not t: continue
        if n == "eas-flow-parts": eas_parts(t)
        elif n == "hybsmrp-alone-flow-parts": hyb_parts(t)
        else: coupling_parts(n, t)
PY

echo
echo "CPU time per preset (replay only; /usr/bin/time):"
cat "$out/cpu.txt"
awk '{s += $2} END {printf "total replay CPU: %.1f s\n", s}' "$out/cpu.txt"
