# gdb script: where goroutine stacks grow from 8 to 16 KiB in a running Go
# process. It breaks on runtime.copystack, and for every copy to 16 KiB of
# an 8 KiB stack prints, once per distinct chain, the function that started
# the goroutine and the call chain (frame pointers) with the depth of each
# frame in bytes from the stack's top. The first line is the function whose
# frame did not fit. The runtime never halves a stack parked more than a
# quarter deep, so the deepest moment of a goroutine's life sets what it
# keeps while it waits (docs/benchmarks.md, "Round 6").
#
#   timeout -s INT 30 gdb -p "$(pgrep -f 'detour serve')" -batch -ex 'source bench/tools/stackgrow.py'
#
# gdb stops the process at every stack copy: attach it for a few seconds
# to a process under light load (-streams 20 of bench/cmd/overhead), not to
# a measurement. Needs the symbol table (build without -ldflags=-s), as
# stacks.py does.
import gdb

FROM, TO = 8192, 16384
seen = set()


def sym(pc):
    s = gdb.execute("info symbol %d" % pc, to_string=True)
    return s.split(" in section")[0].strip()


def u64(addr):
    return int.from_bytes(bytes(gdb.selected_inferior().read_memory(addr, 8)), "little")


class Grow(gdb.Breakpoint):
    def stop(self):
        try:
            self.report()
        except Exception as e:  # never leave the process stopped
            print("stackgrow:", e)
        return False

    def report(self):
        # copystack(gp *g, newsize uintptr): ABIInternal passes gp in AX
        # and newsize in BX; at the first instruction they are still there.
        if int(gdb.parse_and_eval("$rbx")) != TO:
            return
        gp = int(gdb.parse_and_eval("$rax"))
        g = gdb.Value(gp).cast(gdb.lookup_type("runtime.g").pointer()).dereference()
        lo, hi = int(g["stack"]["lo"]), int(g["stack"]["hi"])
        if hi - lo != FROM:
            return
        sp, pc, bp = int(g["sched"]["sp"]), int(g["sched"]["pc"]), int(g["sched"]["bp"])
        lines = ["  %5d  %s" % (hi - sp, sym(pc))]
        while bp and lo <= bp < hi and len(lines) < 80:
            lines.append("  %5d  %s" % (hi - bp, sym(u64(bp + 8))))
            bp = u64(bp)
        chain = "\n".join(lines)
        if chain in seen:
            return
        seen.add(chain)
        print("=== %d -> %d bytes, goroutine started in %s" % (FROM, TO, sym(int(g["startpc"]))))
        print(chain)


Grow("*'runtime.copystack'")
gdb.execute("continue")
