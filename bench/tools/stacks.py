# gdb script: goroutine stacks of a running Go process, grouped by the
# function each goroutine started in, its stack size and how deep it is
# parked (in 512-byte steps). The runtime keeps a goroutine's stack at a
# power of two at least four times the depth it is parked at (it halves a
# stack at GC only when under a quarter is in use), so this shows which
# goroutine's depth sets the memory a held stream costs
# (docs/benchmarks.md, "Round 5").
#
#   gdb -p "$(pgrep -f 'detour serve')" -batch -ex 'source bench/tools/stacks.py'
#
# The binary needs its symbol table: build it without -ldflags=-s
# (go run ./bench/cmd/overhead -mode streams -detour <that binary> ...).
import gdb
from collections import Counter

allgs = gdb.parse_and_eval("'runtime.allgs'")
groups = Counter()
total = 0
for i in range(int(allgs['len'])):
    g = allgs['array'][i]
    if int(g['atomicstatus']['value']) == 6:  # _Gdead
        continue
    lo, hi, sp = int(g['stack']['lo']), int(g['stack']['hi']), int(g['sched']['sp'])
    size = hi - lo
    total += size
    depth = (hi - sp) // 512 * 512 if sp else -1
    sym = gdb.execute("info symbol %d" % int(g['startpc']), to_string=True)
    fn = sym.split(' in ')[0].split(' + ')[0].strip()
    groups[(fn, size, depth)] += 1
print("%8s  %8s  %9s  %s" % ("count", "stack", "parked at", "started in"))
for (fn, size, depth), n in sorted(groups.items(), key=lambda kv: -kv[1])[:20]:
    print("%8d  %8d  %9s  %s" % (n, size, ">=%d" % depth, fn))
print("stacks in all: %.1f MiB" % (total / 1048576.0))
