#!/usr/bin/env python3
"""Random text crush maps with MSR rules (Ceph 19.2+ syntax) for the MSR
differential suite (run_msr_differential.py).

Layouts: 1 to 4 bucket levels over the devices (root -> [row ->] [rack ->]
host -> osd, or a root holding devices directly), every bucket algorithm
(straw2 mostly; uniform only over equal weights), zero-weight devices and
buckets, optional choose_args (index -1 and pool ids, 1..3 weight-set
positions, ids) and map tunables (profiles, msr_descents,
msr_collision_tries). Rules are msr_firstn / msr_indep with optional
set_msr_descents / set_msr_collision_tries steps and one or two
`take; choosemsr ...; emit` blocks whose types strictly descend (several
shards per failure domain, `choosemsr 0 type osd`, a last step above the
leaves, ...).

Maps stay within what Ceph 20.2 maps without faulting: no empty buckets,
no device above the host level when a choosemsr step targets a bucket
type, no tree bucket whose weights are all zero (crushkit's mapper.h lists
what Ceph does wrong there; the unit tests cover those cases).
"""
import argparse
import os
import random

TYPES = ["osd", "host", "rack", "row", "root"]
ALGS = ["uniform", "list", "tree", "straw", "straw2"]
PROFILES = {
    "legacy": [],
    "bobtail": [("choose_local_tries", 0), ("choose_local_fallback_tries", 0),
                ("choose_total_tries", 50), ("chooseleaf_descend_once", 1)],
    "optimal": [("choose_local_tries", 0), ("choose_local_fallback_tries", 0),
                ("choose_total_tries", 50), ("chooseleaf_descend_once", 1),
                ("chooseleaf_vary_r", 1), ("chooseleaf_stable", 1),
                ("straw_calc_version", 1), ("allowed_bucket_algs", 54)],
}


def weight_text(units):
    """Weights are kept in 1/64 units so sums print exactly with 5 decimals."""
    return "%.5f" % (units / 64.0)


def device_units(rng):
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.55:
        return 64
    return rng.choice([16, 32, 96, 128, 192, 256, 40, 200])


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.next_id = -1
        self.num_devices = 0
        self.buckets = []  # (id, name, type index, alg, child units)
        self.straw2 = []  # (id, size)

    def bucket_id(self):
        bid = self.next_id
        self.next_id -= 1
        return bid

    def pick_alg(self, equal):
        rng = self.rng
        if rng.random() < 0.6:
            return "straw2"
        alg = rng.choice(ALGS)
        if alg == "uniform" and not equal:
            alg = "straw2"
        return alg

    def build(self, level, depth, name):
        """Emits the subtree of a bucket of type `level`; returns (name, units)."""
        rng = self.rng
        children = []
        if level == 1 or depth == 1:
            n = rng.randint(1, 5)
            uniform = rng.random() < 0.15
            w = rng.choice([32, 64, 128])
            for _ in range(n):
                d = self.num_devices
                self.num_devices += 1
                children.append(("osd.%d" % d, w if uniform else device_units(rng)))
        else:
            for i in range(rng.randint(1, 4)):
                children.append(self.build(level - 1, depth, "%s-%s%d" % (name, TYPES[level - 1], i)))
        equal = len(set(u for _, u in children)) == 1 and children[0][1] > 0
        alg = self.pick_alg(equal)
        if alg == "tree" and all(u == 0 for _, u in children):
            alg = "straw2"
        bid = self.bucket_id()
        tname = TYPES[level] if not (depth == 1) else "root"
        self.buckets.append((bid, name, tname, alg, children))
        if alg == "straw2":
            self.straw2.append((bid, len(children)))
        return name, sum(u for _, u in children)

    def make(self):
        rng = self.rng
        tun = list(PROFILES[rng.choice(list(PROFILES))])
        # Both msr tunables are always set: with Ceph's defaults (100/100) an
        # unsatisfiable mapping costs 10^4 descents per stride, and num-rep
        # runs up to 12 on maps with a few devices (seconds per input in
        # Ceph and crushkit alike). The decompiler's both-or-neither rule is
        # still exercised through the values 100 below.
        self.msr = self.msr_pair()
        tun += [("msr_descents", self.msr[0]), ("msr_collision_tries", self.msr[1])]
        # depth = bucket levels: 1 (root holds devices), 2 (root/host),
        # 3 (root/rack/host), 4 (root/row/rack/host).
        depth = rng.choice([1, 2, 2, 3, 3, 4])
        self.depth = depth
        top = {1: 4, 2: 4, 3: 4, 4: 4}[depth]
        # Build below the root with the intermediate levels the depth asks for.
        levels = {1: [], 2: [1], 3: [2, 1], 4: [3, 2, 1]}[depth]
        self.levels = levels
        roots = ["default"]
        if depth == 1:
            self.build(1, 1, "default")
        else:
            self.build_root("default", levels)
        if rng.random() < 0.2 and depth > 1:
            self.build_root("second", levels)
            roots.append("second")
        self.roots = roots
        for k, v in tun:
            self.lines.append("tunable %s %d" % (k, v))
        self.lines.append("")
        for d in range(self.num_devices):
            self.lines.append("device %d osd.%d" % (d, d))
        self.lines.append("")
        for i, t in enumerate(TYPES):
            self.lines.append("type %d %s" % (i, t))
        self.lines.append("")
        for bid, name, tname, alg, children in self.buckets:
            self.lines.append("%s %s {" % (tname, name))
            self.lines.append("\tid %d" % bid)
            self.lines.append("\talg %s" % alg)
            self.lines.append("\thash 0")
            for cname, u in children:
                self.lines.append("\titem %s weight %s" % (cname, weight_text(u)))
            self.lines.append("}")
        self.rules = []
        for rid in range(rng.randint(1, 4)):
            self.rule(rid)
        if rng.random() < 0.3 and self.straw2:
            self.choose_args()
        return "\n".join(self.lines) + "\n"

    def msr_pair(self):
        """(msr_descents, msr_collision_tries) with a product of at most 30,
        or one of them 100 and the other 1 in a tenth of the cases."""
        rng = self.rng
        if rng.random() < 0.1:
            return rng.choice([(100, 1), (1, 100)])
        while True:
            d, c = rng.choice([1, 2, 3, 5, 10]), rng.choice([1, 2, 3, 5, 10])
            if d * c <= 30:
                return d, c

    def build_root(self, name, levels):
        rng = self.rng
        children = [self.build(levels[0], 0, "%s-%s%d" % (name, TYPES[levels[0]], i))
                    for i in range(rng.randint(1, 5))]
        alg = self.pick_alg(False)
        if alg == "tree" and all(u == 0 for _, u in children):
            alg = "straw2"
        bid = self.bucket_id()
        self.buckets.append((bid, name, "root", alg, children))
        if alg == "straw2":
            self.straw2.append((bid, len(children)))

    def block(self):
        """One `take; choosemsr...; emit` block with strictly descending types."""
        rng = self.rng
        root = rng.choice(self.roots)
        lines = ["\tstep take %s" % root]
        avail = sorted(self.levels, reverse=True)  # bucket types below the root
        shape = rng.random()
        if not avail or shape < 0.2:
            lines.append("\tstep choosemsr %d type osd" % rng.choice([0, 0, 1, 2, 3, 4, 6]))
        else:
            picks = sorted(rng.sample(avail, rng.randint(1, min(2, len(avail)))), reverse=True)
            for t in picks:
                lines.append("\tstep choosemsr %d type %s" % (rng.choice([0, 1, 2, 2, 3, 4, 6]), TYPES[t]))
            if rng.random() < 0.93:  # else the block ends above the leaves
                lines.append("\tstep choosemsr %d type osd" % rng.choice([1, 1, 2, 2, 3, 4]))
        lines.append("\tstep emit")
        return lines

    def rule(self, rid):
        rng = self.rng
        self.lines.append("rule r%d {" % rid)
        self.lines.append("\tid %d" % rid)
        self.lines.append("\ttype %s" % rng.choice(["msr_firstn", "msr_indep"]))
        d, c = self.msr_pair()
        # A rule sets one, both or neither; the pair in force stays cheap.
        which = rng.random()
        if which < 0.15 and d * self.msr[1] <= 30:
            self.lines.append("\tstep set_msr_descents %d" % d)
        elif which < 0.3 and self.msr[0] * c <= 30:
            self.lines.append("\tstep set_msr_collision_tries %d" % c)
        elif which < 0.45:
            self.lines.append("\tstep set_msr_descents %d" % d)
            self.lines.append("\tstep set_msr_collision_tries %d" % c)
        self.lines += self.block()
        if rng.random() < 0.15:
            self.lines += self.block()
        self.lines.append("}")

    def choose_args(self):
        rng = self.rng
        for idx in sorted(set(rng.choice([-1, -1, 0, 0, 1]) for _ in range(rng.randint(1, 2)))):
            self.lines.append("choose_args %d {" % (idx if idx >= 0 else idx + 2**64))
            for bid, size in self.straw2:
                if rng.random() < 0.3:
                    continue
                self.lines.append("  {")
                self.lines.append("    bucket_id %d" % bid)
                if rng.random() < 0.85:
                    self.lines.append("    weight_set [")
                    for _ in range(rng.randint(1, 3)):
                        ws = " ".join(weight_text(device_units(rng)) for _ in range(size))
                        self.lines.append("      [ %s ]" % ws)
                    self.lines.append("    ]")
                if rng.random() < 0.3:
                    ids = " ".join(str(rng.randint(-1000, 1000)) for _ in range(size))
                    self.lines.append("    ids [ %s ]" % ids)
                self.lines.append("  }")
            self.lines.append("}")


def generate(seed, index):
    """Returns (text, number of devices, number of rules)."""
    g = Gen(seed * 1000003 + index)
    text = g.make()
    return text, g.num_devices, len(g.rules) or sum(1 for l in g.lines if l.startswith("rule "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.count):
        with open(os.path.join(a.out, "map-%d.txt" % i), "w") as f:
            f.write(generate(a.seed, i)[0])


if __name__ == "__main__":
    main()
