#!/usr/bin/env python3
# Which of a process's binary pages are mapped, counted in the 64 KiB
# windows the kernel maps them in (docs/benchmarks.md, "Round 11").
#
#   sudo python3 bench/tools/pagewindows.py PID [NAME]
#
# For every mapping of the file whose path contains NAME (default: the
# process's executable), prints its pages, the pages present, and how many
# 64 KiB windows (16 pages, aligned) have any page present, all of them or
# only some. A read fault on a file mapping maps the neighbouring pages
# that are already in the page cache too ("fault-around", 64 KiB by
# default), so a window whose one function ran shows as wholly present:
# RssFile grows with the number of places touched, not with the bytes run.
# Reads /proc/PID/pagemap, whose present bits need root (or
# CAP_SYS_ADMIN) to be meaningful.
import os
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
WINDOW = 16  # pages: the kernel's default fault_around_bytes, 64 KiB


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: pagewindows.py PID [NAME]")
    pid = int(sys.argv[1])
    name = sys.argv[2] if len(sys.argv) > 2 else os.readlink(f"/proc/{pid}/exe")
    total = 0
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pm:
        for line in maps:
            f = line.split()
            if len(f) < 6 or name not in f[5]:
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            n = (hi - lo) // PAGE
            pm.seek(lo // PAGE * 8)
            data = pm.read(n * 8)
            present = [(struct.unpack_from("<Q", data, i * 8)[0] >> 63) & 1 for i in range(n)]
            touched = full = 0
            for w in range(0, n, WINDOW):
                c = sum(present[w : w + WINDOW])
                touched += c > 0
                full += c == len(present[w : w + WINDOW])
            total += sum(present)
            print(f"{f[0]} {f[1]}  pages {n:6d}  present {sum(present):6d}  "
                  f"windows touched {touched:4d} (whole {full}, partly {touched - full})")
    print(f"present in all: {total * PAGE / (1 << 20):.1f} MiB")


if __name__ == "__main__":
    main()
