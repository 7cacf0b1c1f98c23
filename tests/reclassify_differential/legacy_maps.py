#!/usr/bin/env python3
"""Random legacy CRUSH text maps: one parallel hierarchy per device class
("node3" and "node3-ssd" hosts under roots "default" and "ssd"), as clusters
built before Luminous's device classes have them, with the rules that take
each root. Deterministic in (seed, index).

Variations: the naming of the class buckets (suffix "-ssd", "~"-free
"_SSD", prefix "ssd-"), a rack level, hosts with only fast devices (their
base bucket does not exist), a third class, "wonky" declared weights, every
bucket algorithm, some devices already classed, rules taking a host or a
`class` shadow tree, and an optional compat weight set.

generate() returns (text, info): info names what the map holds, so the
runner can build --reclassify commands that fit it.
"""
import random

# Mostly straw2, as real legacy clusters; a uniform bucket makes every
# shadow-tree rebuild fail (Ceph's clone of it refuses its items), so rare.
ALGS = ["straw2"] * 12 + ["straw", "straw", "list", "tree", "uniform"]


class Legacy:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.next_bucket = -1
        self.weights = {}  # bucket name -> weight declared for it in parents

    def bucket_id(self):
        bid = self.next_bucket
        self.next_bucket -= 1
        return bid

    def make(self):
        rng = self.rng
        style = rng.choice(["suffix", "suffix", "upper", "prefix"])
        fast = rng.choice(["ssd", "ssd", "nvme"])
        fast_name = {"suffix": "%s-" + fast, "upper": "%s-" + fast.upper(),
                     "prefix": fast + "-%s"}[style]
        hosts = ["node%d" % i for i in range(rng.randint(1, 6))]
        racks = rng.random() < 0.3
        third = rng.random() < 0.15
        alg = rng.choice(ALGS)
        mixed_algs = rng.random() < 0.2
        scv = rng.choice([0, 1])
        hdd_rule = rng.random() < 0.1  # a rule taking "default class hdd"
        if rng.random() < 0.7:
            self.lines += ["tunable choose_local_tries 0", "tunable choose_local_fallback_tries 0",
                           "tunable choose_total_tries 50", "tunable chooseleaf_descend_once 1",
                           "tunable chooseleaf_vary_r 1", "tunable chooseleaf_stable 1",
                           "tunable straw_calc_version %d" % scv,
                           "tunable allowed_bucket_algs 54"]
        dev = 0
        devices = []
        per_host = {}
        for h in hosts:
            kinds = []
            slow_n = 0 if rng.random() < 0.15 else rng.randint(1, 3)
            fast_n = 0 if rng.random() < 0.15 else rng.randint(1, 2)
            if slow_n + fast_n == 0:
                slow_n = 1
            for _ in range(slow_n):
                kinds.append("slow")
            for _ in range(fast_n):
                kinds.append("fast")
            if third and rng.random() < 0.5:
                kinds.append("third")
            per_host[h] = []
            for k in kinds:
                cls = ""
                if rng.random() < 0.1 or (hdd_rule and dev == 0):
                    cls = "hdd" if dev == 0 and hdd_rule else rng.choice(["hdd", fast, "hdd"])
                devices.append((dev, cls))
                per_host[h].append((dev, k))
                dev += 1
        self.lines.append("")
        for d, cls in devices:
            self.lines.append("device %d osd.%d%s" % (d, d, " class " + cls if cls else ""))
        self.lines += ["", "type 0 osd", "type 1 host", "type 2 rack", "type 3 root", ""]

        def wt(default):
            if rng.random() < 0.12:
                return round(rng.uniform(0.1, 5.0), 3)
            return default

        def emit_bucket(btype, name, items):
            a = rng.choice(ALGS) if mixed_algs else alg
            if a == "uniform" and len(set(w for _, w in items)) > 1:
                a = "straw2"
            bid = self.bucket_id()
            self.lines.append("%s %s {" % (btype, name))
            self.lines.append("\tid %d" % bid)
            self.lines.append("\talg %s" % a)
            self.lines.append("\thash 0")
            total = 0.0
            for item, w in items:
                self.lines.append("\titem %s weight %.3f" % (item, w))
                total += w
            self.lines.append("}")
            return total

        trees = {"slow": [], "fast": [], "third": []}
        for h in hosts:
            for kind in ("slow", "fast", "third"):
                items = [("osd.%d" % d, rng.choice([1.0, 1.0, 0.5, 2.0]))
                         for d, k in per_host[h] if k == kind]
                if not items:
                    continue
                name = {"slow": h, "fast": fast_name % h, "third": h + "-hdd2"}[kind]
                w = emit_bucket("host", name, items)
                trees[kind].append((name, wt(w)))
        roots = {"slow": "default", "fast": fast, "third": "hdd2"}
        present = []
        for kind in ("slow", "fast", "third"):
            if not trees[kind]:
                continue
            items = trees[kind]
            if racks:
                half = (len(items) + 1) // 2
                groups = [items[:half], items[half:]]
                items = []
                for gi, g in enumerate(groups):
                    if not g:
                        continue
                    rname = "rack%d%s" % (gi, "" if kind == "slow" else "-" + roots[kind])
                    w = emit_bucket("rack", rname, g)
                    items.append((rname, wt(w)))
            emit_bucket("root", roots[kind], items)
            present.append(roots[kind])
        self.lines.append("")
        rid = 0
        for root in present:
            for mode in (["firstn"] if rng.random() < 0.7 else ["firstn", "indep"]):
                self.rule(rid, "%s_%s" % (root, mode), root, mode, "host")
                rid += 1
        if rng.random() < 0.15 and hosts:
            one = trees["slow"][0][0] if trees["slow"] else present[0]
            self.rule(rid, "one_host", one, "firstn", "osd")
            rid += 1
        if hdd_rule and "default" in present:
            self.rule(rid, "default_hdd", "default class hdd", "firstn", "host")
            rid += 1
        if rng.random() < 0.1:
            self.choose_args()
        info = {"style": style, "fast": fast, "fast_name": fast_name, "hosts": hosts,
                "roots": present, "racks": racks, "devices": [d for d, _ in devices],
                "has_third": bool(trees["third"])}
        return "\n".join(self.lines) + "\n", info

    def rule(self, rid, name, take, mode, ftype):
        self.lines += ["rule %s {" % name, "\tid %d" % rid,
                       "\ttype %s" % ("replicated" if mode == "firstn" else "erasure"),
                       "\tmin_size 1", "\tmax_size %d" % self.rng.choice([3, 4, 10]),
                       "\tstep take %s" % take,
                       "\tstep chooseleaf %s 0 type %s" % (mode, ftype), "\tstep emit", "}"]

    def choose_args(self):
        """A compat weight set on every straw2 bucket (weights copied)."""
        out, cur, items = [], None, []
        for line in self.lines:
            if line.startswith("\tid "):
                cur = int(line.split()[1])
                items = []
            elif line.startswith("\talg ") and line.split()[1] != "straw2":
                cur = None
            elif line.startswith("\titem ") and cur is not None:
                items.append(line.split()[3])
            elif line == "}" and cur is not None and items:
                out.append((cur, items))
                cur = None
        if not out:
            return
        self.lines.append("choose_args 18446744073709551615 {")
        for bid, ws in out:
            self.lines += ["  {", "    bucket_id %d" % bid, "    weight_set [",
                           "      [ %s ]" % " ".join(ws), "    ]", "  }"]
        self.lines.append("}")


def generate(seed, index):
    return Legacy(seed * 7919 + index).make()
