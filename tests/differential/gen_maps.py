#!/usr/bin/env python3
"""Random CRUSH text maps (Pacific syntax) for differential testing.

Each map is deterministic in (seed, index). Maps exercise: every bucket
algorithm (uniform, list, tree, straw, straw2), tunable profiles legacy..jewel
and random individual tunables (straw_calc_version 0/1), device classes and
`step take X class Y`, choose_args (index -1 and pool ids, 1..N positions,
ids), replicated and erasure rules with choose/chooseleaf firstn/indep, set_*
steps, multiple take/emit blocks, zero-weight items, odd bucket sizes and
empty buckets. Some maps are invalid on purpose (the oracle rejects them and
the runner skips them).

Usage as a program: gen_maps.py --seed S --count N --out DIR
writes DIR/map-<i>.txt.
"""
import argparse
import os
import random

ALGS = ["uniform", "list", "tree", "straw", "straw2"]
CLASSES = ["hdd", "ssd", "nvme"]

PROFILES = {
    "legacy": {},
    "argonaut": {},
    "bobtail": {"choose_local_tries": 0, "choose_local_fallback_tries": 0,
                "choose_total_tries": 50, "chooseleaf_descend_once": 1},
    "firefly": {"choose_local_tries": 0, "choose_local_fallback_tries": 0,
                "choose_total_tries": 50, "chooseleaf_descend_once": 1,
                "chooseleaf_vary_r": 1},
    "hammer": {"choose_local_tries": 0, "choose_local_fallback_tries": 0,
               "choose_total_tries": 50, "chooseleaf_descend_once": 1,
               "chooseleaf_vary_r": 1, "allowed_bucket_algs": 54},
    "jewel": {"choose_local_tries": 0, "choose_local_fallback_tries": 0,
              "choose_total_tries": 50, "chooseleaf_descend_once": 1,
              "chooseleaf_vary_r": 1, "chooseleaf_stable": 1,
              "straw_calc_version": 1, "allowed_bucket_algs": 54},
}
TUNABLE_ORDER = ["choose_local_tries", "choose_local_fallback_tries",
                 "choose_total_tries", "chooseleaf_descend_once",
                 "chooseleaf_vary_r", "chooseleaf_stable", "straw_calc_version",
                 "allowed_bucket_algs"]


def fmt_weight(rng, w):
    return ("%.3f" if rng.random() < 0.7 else "%.5f") % w


def random_weight(rng):
    r = rng.random()
    if r < 0.08:
        return 0.0
    if r < 0.5:
        return 1.0
    if r < 0.8:
        return rng.choice([0.5, 2.0, 3.0, 0.25, 1.5, 4.0])
    return round(rng.uniform(0.01, 10.0), 5)


class Gen:
    def __init__(self, seed, oddities=False):
        self.rng = random.Random(seed)
        self.oddities = oddities
        # Ceph-accepted oddities draw from their own generator, so the rest
        # of every map is the same with or without them.
        self.odd_rng = random.Random(seed ^ 0x5EED)
        self.lines = []
        self.next_bucket_id = -1

    def add_oddities(self, n_dev):
        """What CrushCompiler accepts though it is questionable (the last
        declaration wins): a type id declared twice (the first name keeps
        resolving to it), a type name declared twice (later buckets get the
        new id), a device id declared twice (renamed; both names resolve)."""
        odd = self.odd_rng
        if odd.random() < 0.08:
            self.lines.append("type %d %s" % (odd.randint(0, 3), odd.choice(["node", "chassis"])))
        if odd.random() < 0.05:
            self.lines.append("type %d %s" % (odd.choice([5, 7, 11]), odd.choice(["rack", "host"])))
        if n_dev and odd.random() < 0.08:
            d = odd.randrange(n_dev)
            self.lines.append("device %d alias.%d" % (d, d))

    def tunables(self):
        rng = self.rng
        t = dict(PROFILES[rng.choice(list(PROFILES))])
        if rng.random() < 0.35:
            # random individual tunables on top of the profile
            for name in rng.sample(TUNABLE_ORDER, rng.randint(1, 4)):
                t[name] = {
                    "choose_local_tries": lambda: rng.randint(0, 3),
                    "choose_local_fallback_tries": lambda: rng.randint(0, 5),
                    # now and then past 64 tries, where hopeless chooses end early
                    "choose_total_tries": lambda: rng.randint(1, 100) if rng.random() < 0.8
                    else rng.randint(64, 300),
                    "chooseleaf_descend_once": lambda: rng.randint(0, 1),
                    "chooseleaf_vary_r": lambda: rng.randint(0, 4),
                    "chooseleaf_stable": lambda: rng.randint(0, 1),
                    "straw_calc_version": lambda: rng.randint(0, 1),
                    "allowed_bucket_algs": lambda: rng.choice([22, 54, 62, 6, 38]),
                }[name]()
        if "straw_calc_version" not in t and rng.random() < 0.4:
            t["straw_calc_version"] = rng.randint(0, 1)
        return t

    def make(self):
        rng = self.rng
        t = self.tunables()
        for name in TUNABLE_ORDER:
            if name in t:
                self.lines.append("tunable %s %d" % (name, t[name]))
        use_classes = rng.random() < 0.4
        # Pacific cannot clone uniform buckets into class shadow trees (the
        # compile fails); keep them rare in class maps.
        self.uniform_ok = not use_classes or rng.random() < 0.2
        n_hosts = rng.randint(1, 8)
        per_host = [rng.choice([0, 1, 2, 3, 3, 4, 5, 7]) if rng.random() < 0.15
                    else rng.randint(1, 5) for _ in range(n_hosts)]
        n_dev = sum(per_host)
        dev_class = {}
        for d in range(n_dev):
            cls = ""
            if use_classes and rng.random() < 0.95:
                dev_class[d] = rng.choice(CLASSES[:rng.randint(1, 3)])
                cls = " class " + dev_class[d]
            self.lines.append("device %d osd.%d%s" % (d, d, cls))
        types = ["osd", "host", "rack", "root"]
        for i, name in enumerate(types):
            self.lines.append("type %d %s" % (i, name))
        if self.oddities:
            self.add_oddities(n_dev)

        buckets = []  # (name, id, type, alg, items[(name, weight)])
        dev = 0
        host_names = []
        host_weight = {}
        for h in range(n_hosts):
            alg = self.pick_alg()
            items = []
            same_w = random_weight(rng) or 1.0
            for _ in range(per_host[h]):
                w = same_w if alg == "uniform" else random_weight(rng)
                items.append(("osd.%d" % dev, w))
                dev += 1
            name = "host%d" % h
            bid = self.next_id()
            buckets.append((name, bid, "host", alg, items))
            host_names.append(name)
            host_weight[name] = sum(w for _, w in items)
        # optional rack level
        parents = host_names
        parent_weight = dict(host_weight)
        if rng.random() < 0.5 and n_hosts >= 2:
            n_racks = rng.randint(1, min(3, n_hosts))
            racks = [[] for _ in range(n_racks)]
            for i, hn in enumerate(host_names):
                racks[i % n_racks].append(hn)
            parents = []
            for r, members in enumerate(racks):
                alg = self.pick_alg()
                items = self.child_items(alg, members, parent_weight)
                name = "rack%d" % r
                buckets.append((name, self.next_id(), "rack", alg, items))
                parents.append(name)
                parent_weight[name] = sum(w for _, w in items)
        roots = ["default"]
        alg = self.pick_alg()
        buckets.append(("default", self.next_id(), "root", alg,
                        self.child_items(alg, parents, parent_weight)))
        if rng.random() < 0.2:
            # a second root sharing nothing, possibly empty
            members = [] if rng.random() < 0.5 else parents[:1]
            alg = self.pick_alg()
            buckets.append(("other", self.next_id(), "root", alg,
                            self.child_items(alg, members, parent_weight)))
            roots.append("other")
        if rng.random() < 0.1:
            buckets.append(("emptyhost", self.next_id(), "host", self.pick_alg(), []))

        explicit_ids = rng.random() < 0.8
        for name, bid, btype, alg, items in buckets:
            self.lines.append("%s %s {" % (btype, name))
            if explicit_ids:
                self.lines.append("\tid %d" % bid)
            self.lines.append("\talg %s" % alg)
            self.lines.append("\thash 0")
            for iname, w in items:
                if rng.random() < 0.1 and not iname.startswith("osd."):
                    self.lines.append("\titem %s" % iname)  # default: child's weight
                else:
                    self.lines.append("\titem %s weight %s" % (iname, fmt_weight(rng, w)))
            self.lines.append("}")

        classes = sorted(set(dev_class.values()))
        n_rules = rng.randint(1, 4)
        rule_id = 0
        for r in range(n_rules):
            if rng.random() < 0.1:
                rule_id += 1  # leave a hole: "rule N dne"
            self.rule(rule_id, roots, classes, host_names)
            rule_id += 1

        straw2 = [(bid, len(items)) for _, bid, _, alg, items in buckets if alg == "straw2"]
        if straw2 and rng.random() < 0.35:
            self.choose_args(straw2)
        return "\n".join(self.lines) + "\n"

    def pick_alg(self):
        rng = self.rng
        if rng.random() < 0.45:
            return "straw2"
        alg = rng.choice(ALGS)
        if alg == "uniform" and not self.uniform_ok:
            alg = rng.choice(ALGS[1:])
        return alg

    def child_items(self, alg, members, weights):
        rng = self.rng
        if alg == "uniform":
            w = rng.choice([1.0, 2.0, 3.0])
            return [(m, w) for m in members]
        out = []
        for m in members:
            w = weights[m]
            if rng.random() < 0.1:
                w = random_weight(rng)
            out.append((m, w))
        return out

    def next_id(self):
        bid = self.next_bucket_id
        self.next_bucket_id -= 1
        return bid

    def rule(self, rule_id, roots, classes, hosts):
        rng = self.rng
        erasure = rng.random() < 0.35
        mode = "indep" if erasure else "firstn"
        if rng.random() < 0.15:
            mode = "firstn" if erasure else "indep"
        min_size = rng.randint(1, 3)
        max_size = rng.randint(min_size, 10)
        self.lines.append("rule r%d {" % rule_id)
        self.lines.append("\tid %d" % rule_id)
        self.lines.append("\ttype %s" % ("erasure" if erasure else "replicated"))
        self.lines.append("\tmin_size %d" % min_size)
        self.lines.append("\tmax_size %d" % max_size)
        blocks = 2 if rng.random() < 0.15 else 1
        for _ in range(blocks):
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                step, hi = rng.choice([("set_choose_tries", 100), ("set_chooseleaf_tries", 10),
                                       ("set_choose_local_tries", 3),
                                       ("set_choose_local_fallback_tries", 5),
                                       ("set_chooseleaf_vary_r", 4),
                                       ("set_chooseleaf_stable", 1)])
                if step == "set_choose_tries" and rng.random() < 0.3:
                    hi = 300  # past the hopeless-choose checkpoints (64, 128, 256)
                self.lines.append("\tstep %s %d" % (step, rng.randint(0, hi)))
            take = rng.choice(roots) if rng.random() < 0.9 else rng.choice(hosts)
            cls = ""
            if classes and rng.random() < 0.6:
                cls = " class " + rng.choice(classes)
            self.lines.append("\tstep take %s%s" % (take, cls))
            n = rng.choice([0, 0, 0, 1, 2, 3, 4, -1])
            r = rng.random()
            if r < 0.55:
                self.lines.append("\tstep chooseleaf %s %d type %s" %
                                  (mode, n, rng.choice(["host", "host", "rack", "osd"])))
            elif r < 0.8:
                self.lines.append("\tstep choose %s %d type %s" %
                                  (mode, n, rng.choice(["host", "rack"])))
                self.lines.append("\tstep choose %s %d type osd" %
                                  (mode, rng.choice([1, 1, 2, 0])))
            elif r < 0.97:
                self.lines.append("\tstep choose %s %d type osd" % (mode, n))
            else:
                # emits buckets: Pacific's --test crashes on these (README)
                self.lines.append("\tstep choose %s %d type host" % (mode, n))
            self.lines.append("\tstep emit")
        self.lines.append("}")

    def choose_args(self, straw2):
        rng = self.rng
        indices = sorted(set(rng.choice([-1, -1, 0, 1, 2, 3]) for _ in range(rng.randint(1, 2))))
        for idx in indices:
            # Ceph decompiles index -1 as its u64 value; the grammar wants that.
            self.lines.append("choose_args %d {" % (idx if idx >= 0 else idx + 2**64))
            for bid, size in straw2:
                if rng.random() < 0.3:
                    continue
                self.lines.append("  {")
                self.lines.append("    bucket_id %d" % bid)
                if rng.random() < 0.85 and size > 0:
                    self.lines.append("    weight_set [")
                    for _ in range(rng.randint(1, 3)):
                        ws = " ".join("%.3f" % random_weight(rng) for _ in range(size))
                        self.lines.append("      [ %s ]" % ws)
                    self.lines.append("    ]")
                if rng.random() < 0.3 and size > 0:
                    ids = " ".join(str(rng.randint(-1000, 1000)) for _ in range(size))
                    self.lines.append("    ids [ %s ]" % ids)
                self.lines.append("  }")
            self.lines.append("}")


def generate(seed, index, oddities=False):
    """Map `index` of `seed`; with `oddities`, some maps also carry the
    questionable declarations Ceph accepts (Gen.add_oddities)."""
    return Gen(seed * 1000003 + index, oddities).make()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.count):
        with open(os.path.join(a.out, "map-%d.txt" % i), "w") as f:
            f.write(generate(a.seed, i))


if __name__ == "__main__":
    main()
