#!/usr/bin/env python3
"""Every file crushkit writes, to every kind of output path (issue 34).

For each writer (compile/decompile/edit/strategies/import -o, the crushtool
front's -o, plan --html and --commands, balance -o, the osdmaptool front's
--upmap, --upmap-cleanup, --createsimple and --save, the Python module's
CrushMap.save and ClusterState.save) and each path kind:
  new file, existing file (replaced, mode kept), symlink to a file (the link
  survives, its target gets the data), a chain of relative symlinks across
  directories, a dangling symlink (its target is created), a /dev/stdout-style
  link to /proc/self/fd/N whose descriptor is a file, a FIFO with a reader,
  /dev/null, a directory (an error naming it; nothing replaced)
the bytes written equal those written to a plain new path.

With --bulk-crushkit (CI: the Release binary, while --crushkit is the ASan
one) the whole writer x path-kind matrix runs on the bulk binary, and the
crushkit under test writes through every path kind with one cheap writer per
write function (compile -o: WriteFileAtomically; crushtool -c -o: Ceph's
write_file), and every other writer to a new path and one path kind in turn:
every writer and every path kind under ASan at least once, for a third of
the ASan runs (an ASan run of plan or import costs ~0.7 CPU-s).

Then the issue's own check, in a private mount namespace whose /dev is a
scratch tmpfs (never the machine's /dev): `crushkit crushtool -c m.txt -o
/dev/stdout > out` writes the map into out, equal to Ceph's crushtool doing
the same, and /dev/stdout is still the same symlink afterwards."""
import argparse
import os
import shutil
import stat
import sys
import tempfile
import threading

from cli_check import FAILURES, expect, report, run

SKIP = 77


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Writer:
    """A command that writes one output file; `argv(out)` names the output."""

    def __init__(self, name, argv, python=None, exact=True):
        # exact=False: the output carries a clock (timings, creation stamps),
        # so only non-empty output is checked.
        self.name, self.argv, self.python, self.exact = name, argv, python, exact

    def write(self, out, pass_fds=()):
        if self.python:
            code = self.python.format(out=repr(out))
            argv = [sys.executable, "-c", code]
        else:
            argv = self.argv(out)
        return run(argv, expect_rc=None, text=False, pass_fds=pass_fds)


def fifo_read(path, sink):
    with open(path, "rb") as f:
        sink.append(f.read())


# The path kinds of check_writer, besides the new file every run starts with.
PATH_KINDS = ("existing file", "symlink", "symlink chain", "dangling symlink",
              "/proc/self/fd link", "FIFO", "/dev/null", "directory")


def check_writer(w, scratch, expected, kinds=PATH_KINDS):
    """Writes through each path kind of `kinds` and compares with `expected`."""
    label = w.name
    d = tempfile.mkdtemp(dir=scratch)

    def same(data):
        return data == expected if w.exact else len(data) > 0

    def ok(p, what):
        expect(p.returncode == 0,
               f"{label} {what}: exit {p.returncode}\n{p.stderr.decode(errors='replace')[:600]}")
        return p.returncode == 0

    # Existing file: replaced, its mode kept.
    if "existing file" in kinds:
        f = os.path.join(d, "existing")
        with open(f, "wb") as fh:
            fh.write(b"old contents that are longer than nothing" * 100)
        os.chmod(f, 0o640)
        if ok(w.write(f), "existing file"):
            expect(same(read(f)), f"{label} existing file: wrong bytes")
            expect(stat.S_IMODE(os.stat(f).st_mode) == 0o640, f"{label}: existing file's mode changed")

    # Symlink to a file.
    if "symlink" in kinds:
        target = os.path.join(d, "target")
        with open(target, "wb") as fh:
            fh.write(b"old")
        link = os.path.join(d, "link")
        os.symlink("target", link)
        if ok(w.write(link), "symlink"):
            expect(os.path.islink(link), f"{label}: symlink replaced by a file")
            expect(same(read(target)), f"{label} symlink: target lacks the output")

    # Chain of relative links across directories: a -> sub/b -> ../c -> abs target2.
    if "symlink chain" in kinds:
        os.mkdir(os.path.join(d, "sub"))
        target2 = os.path.join(d, "sub", "target2")
        os.symlink("sub/b", os.path.join(d, "a"))
        os.symlink("../c", os.path.join(d, "sub", "b"))
        os.symlink(target2, os.path.join(d, "c"))
        if ok(w.write(os.path.join(d, "a")), "symlink chain"):
            expect(all(os.path.islink(os.path.join(d, x)) for x in ("a", "sub/b", "c")),
                   f"{label}: a link of the chain was replaced")
            expect(os.path.exists(target2) and same(read(target2)),
                   f"{label} symlink chain: end of the chain lacks the output")

    # Dangling symlink: its target is created.
    if "dangling symlink" in kinds:
        dangling = os.path.join(d, "dangling")
        os.symlink("made", dangling)
        if ok(w.write(dangling), "dangling symlink"):
            expect(os.path.islink(dangling), f"{label}: dangling symlink replaced")
            made = os.path.join(d, "made")
            expect(os.path.exists(made) and same(read(made)),
                   f"{label} dangling symlink: target not created with the output")

    # /dev/stdout-style link to a descriptor that is a file.
    if "/proc/self/fd link" in kinds:
        fd_file = os.path.join(d, "fd-file")
        fd = os.open(fd_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"previous")
        proc_link = os.path.join(d, "stdout")
        os.symlink(f"/proc/self/fd/{fd}", proc_link)
        p = w.write(proc_link, pass_fds=(fd,))
        os.close(fd)
        if ok(p, "/proc/self/fd link"):
            expect(os.path.islink(proc_link) and os.readlink(proc_link) == f"/proc/self/fd/{fd}",
                   f"{label}: /dev/stdout-style link replaced")
            expect(same(read(fd_file)), f"{label} /proc/self/fd link: file lacks the output")

    # FIFO with a reader.
    if "FIFO" in kinds:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=fifo_read, args=(fifo, got))
        reader.start()
        p = w.write(fifo)
        if p.returncode != 0:
            # Unblock the reader, which waits for a writer to open the FIFO.
            with open(fifo, "wb"):
                pass
        reader.join(60)
        if ok(p, "FIFO"):
            expect(stat.S_ISFIFO(os.lstat(fifo).st_mode), f"{label}: FIFO replaced")
            expect(got and same(got[0]), f"{label} FIFO: reader got other bytes")

    # /dev/null.
    if "/dev/null" in kinds:
        ok(w.write("/dev/null"), "/dev/null")
        expect(stat.S_ISCHR(os.lstat("/dev/null").st_mode), f"{label}: /dev/null replaced")

    # A directory: an error, the directory untouched, no temporary file left.
    if "directory" in kinds:
        sub = os.path.join(d, "dir")
        os.mkdir(sub)
        p = w.write(sub)
        expect(p.returncode != 0, f"{label}: writing to a directory exited 0")
        expect(os.path.isdir(sub), f"{label}: directory replaced")
        expect(not [x for x in os.listdir(d) if x.startswith(".crushkit")],
               f"{label}: temporary file left behind: {os.listdir(d)}")
    shutil.rmtree(d)


def check_save_in_place(k, om_source, scratch):
    """osdmaptool --save writes its input map: through a symlink it must keep
    the link and update the target."""
    d = tempfile.mkdtemp(dir=scratch)
    target = os.path.join(d, "om.real")
    shutil.copy(om_source, target)
    link = os.path.join(d, "om")
    os.symlink("om.real", link)
    run([k, "osdmaptool", link, "--adjust-crush-weight", "0:0.5", "--save"])
    expect(os.path.islink(link), "osdmaptool --save replaced the symlink")
    expect(read(target) != read(om_source), "osdmaptool --save did not update the link's target")
    shutil.rmtree(d)


def check_private_dev_stdout(k, crushtool, sample, scratch, require_oracle):
    """The issue's check, with /dev a private tmpfs in a new mount namespace."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return "unshare or root missing"
    out_k, out_c = os.path.join(scratch, "dev-k.bin"), os.path.join(scratch, "dev-c.bin")
    # /dev/null and the random devices for Ceph's tool; the stdio links as
    # udev makes them.
    script = f"""set -e
mount -t tmpfs -o mode=755 crushkit-dev /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9
ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
before=$(readlink /dev/stdout)
"$1" crushtool -c "$2" -o /dev/stdout > "$3"
[ -L /dev/stdout ] && [ "$(readlink /dev/stdout)" = "$before" ] || {{ echo "/dev/stdout changed" >&2; exit 3; }}
if [ -n "$4" ]; then
  timeout 60 "$4" -c "$2" -o /dev/stdout > "$5"
  [ -L /dev/stdout ] || {{ echo "/dev/stdout changed by crushtool" >&2; exit 3; }}
fi
"""
    p = run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", k, sample,
             out_k, crushtool or "", out_c], expect_rc=None, text=False)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace")
        if "Operation not permitted" in err and not require_oracle:
            return "mount namespaces not permitted"
        FAILURES.append(f"private /dev check: exit {p.returncode}\n{err[:800]}")
        return None
    expect(os.path.getsize(out_k) > 0, "crushtool -c -o /dev/stdout > out: out is empty")
    if crushtool:
        expect(read(out_k) == read(out_c),
               "crushkit crushtool -c -o /dev/stdout differs from crushtool's")
    expect(os.path.islink("/dev/stdout"), "the machine's /dev/stdout is no longer a symlink")
    return None


def crushkit_writers(k, sample, crush_bin, import_argv, state, balanced, ops):
    """The crushkit binary `k`'s writers, one per command and output flag."""
    return [
        Writer("compile -o", lambda o: [k, "compile", sample, "-o", o]),
        Writer("decompile -o", lambda o: [k, "decompile", crush_bin, "-o", o]),
        Writer("edit -o", lambda o: [k, "edit", crush_bin, "-o", o, "--do",
                                     "osd crush reweight osd.0 0.5"]),
        Writer("crushtool -c -o", lambda o: [k, "crushtool", "-c", sample, "-o", o]),
        Writer("strategies -o", lambda o: [k, "strategies", "--nodes", "5", "--add", "1",
                                           "--keys", "1000", "-o", o], exact=False),
        Writer("import -o", lambda o: [k] + import_argv + ["-o", o]),
        Writer("plan --html", lambda o: [k, "plan", state, ops, "--html", o]),
        Writer("plan --commands", lambda o: [k, "plan", state, ops, "--max-misplaced", "5%",
                                             "--commands", o]),
        Writer("balance -o", lambda o: [k, "balance", state, "--max", "5", "-o", o]),
        Writer("osdmaptool --upmap", lambda o: [k, "osdmaptool", state, "--upmap", o,
                                                "--upmap-max", "5"]),
        Writer("osdmaptool --upmap-cleanup", lambda o: [
            k, "osdmaptool", balanced, "--adjust-crush-weight",
            ",".join(f"{i}:0" for i in range(5, 11)), "--upmap-cleanup", o]),
        Writer("osdmaptool --createsimple", lambda o: [k, "osdmaptool", "--createsimple", "6",
                                                       "--clobber", o], exact=False),
    ]


# The cheapest writer of each write function, which goes through every path
# kind under ASan when a bulk binary runs the full matrix:
# WriteFileAtomically (crushkit's commands) and CephWriteFile (the fronts).
EVERY_PATH_KIND = ("compile -o", "crushtool -c -o")


def check_writers(writers, scratch, tag="", kinds=None):
    """Each writer to a plain new path, then through its path kinds: kinds[i]
    for writers[i], every kind when `kinds` is None. `tag` goes after each
    writer's name in the failures (which binary wrote)."""
    for i, w in enumerate(writers):
        w.name += tag
        plain = os.path.join(scratch, "plain.out")
        p = w.write(plain)
        if p.returncode != 0:
            FAILURES.append(f"{w.name} to a new file: exit {p.returncode}\n"
                            f"{p.stderr.decode(errors='replace')[:600]}")
            continue
        expected = read(plain)
        os.unlink(plain)
        expect(expected, f"{w.name}: wrote nothing")
        check_writer(w, scratch, expected, PATH_KINDS if kinds is None else kinds[i])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--bulk-crushkit", default="",
                    help="a faster build of crushkit for the full writer x path-kind matrix")
    ap.add_argument("--samples", required=True)
    ap.add_argument("--python-path", default="")
    args = ap.parse_args()
    k = os.path.abspath(args.crushkit)
    bulk = os.path.abspath(args.bulk_crushkit) if args.bulk_crushkit else k
    if os.path.realpath(bulk) == os.path.realpath(k):
        bulk = k
    require_oracle = os.environ.get("CRUSHKIT_REQUIRE_ORACLE") == "1"
    sample = os.path.join(args.samples, "3rack-weighted.crush")

    with tempfile.TemporaryDirectory() as scratch:
        def fixture(name, argv):
            path = os.path.join(scratch, name)
            run(argv(path), check=True)
            return path

        crush_bin = fixture("map.bin", lambda o: [bulk, "compile", sample, "-o", o])
        cluster = os.path.join(args.samples, "cluster")
        dump, crush_txt = os.path.join(cluster, "osd-dump.json"), os.path.join(cluster, "crush.txt")
        import_argv = ["import", "--osdmap", dump, "--crush", crush_txt, "--pg-stats",
                       os.path.join(cluster, "pg-dump.json")]
        state = fixture("state.pb", lambda o: [bulk] + import_argv + ["-o", o])
        # The balancer's upmaps, some of which --upmap-cleanup cancels once
        # their OSDs lose their CRUSH weight.
        balanced = fixture("balanced.pb", lambda o: [bulk, "balance", state, "--max", "5", "-o", o])
        om = fixture("om", lambda o: [bulk, "osdmaptool", "--createsimple", "12",
                                      "--with-default-pool", "--pg-bits", "4", o])
        ops = os.path.join(cluster, "reweight.ops")

        check_writers(crushkit_writers(bulk, sample, crush_bin, import_argv, state, balanced, ops),
                      scratch, "" if bulk == k else " [--bulk-crushkit]")
        if args.python_path:
            prelude = f"import sys; sys.path.insert(0, {args.python_path!r}); import crushkit; "
            check_writers([
                Writer("python CrushMap.save", None, python=prelude +
                       f"crushkit.CrushMap.from_binary(open({crush_bin!r}, 'rb').read())"
                       ".save({out})"),
                Writer("python CrushMap.save(text=True)", None, python=prelude +
                       f"crushkit.CrushMap.from_binary(open({crush_bin!r}, 'rb').read())"
                       ".save({out}, text=True)"),
                Writer("python ClusterState.save", None, python=prelude +
                       f"crushkit.ClusterState.load({state!r}).save({{out}})"),
            ], scratch)
        if bulk != k:
            # The binary under test (CI: ASan): every writer to a new path and
            # one path kind in turn, EVERY_PATH_KIND's writers through all.
            under_test = crushkit_writers(k, sample, crush_bin, import_argv, state, balanced, ops)
            others = [w for w in under_test if w.name not in EVERY_PATH_KIND]
            kinds = [PATH_KINDS if w.name in EVERY_PATH_KIND
                     else (PATH_KINDS[others.index(w) % len(PATH_KINDS)],) for w in under_test]
            check_writers(under_test, scratch, " [--crushkit]", kinds)
        check_save_in_place(k, om, scratch)

        crushtool = shutil.which("crushtool")
        if crushtool is None and require_oracle:
            FAILURES.append("crushtool (Ceph 16.2) missing and CRUSHKIT_REQUIRE_ORACLE=1")
        skipped = check_private_dev_stdout(k, crushtool, sample, scratch, require_oracle)
        if skipped:
            print(f"note: private /dev check skipped: {skipped}")

    return report("output paths")


if __name__ == "__main__":
    sys.exit(main())
