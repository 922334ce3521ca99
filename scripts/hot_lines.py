# scripts/hot_lines.py - reads the lackey trace of scripts/hot_lines.c on
# stdin (see scripts/hot_lines.sh) and prints the instances' touched lines.
import sys
graph = sys.argv[1] if len(sys.argv) > 1 else "?"
marker, insts, on, seen = None, [], False, 0
parts, ws = None, None     # (hot end, local pose, model pose, pose bytes); (workspace address, bytes)
ws_lines = {}              # (frame, instance) -> workspace lines touched while that instance updated
# the crowd's frame visits the instances in 3 passes, each in order: the
# inputs (parameter setters), the batch update, the count of clips sampled;
# the LOD crowd's skipped frames (hot_lines.c's "skip") in one
PASSES = int(sys.argv[2]) if len(sys.argv) > 2 else 3
per_update = {}   # (frame, instance) -> set of lines
union = {}        # instance -> set of lines
frame, last = 0, -1
for line in sys.stdin:
    if line.startswith("MARKER "):
        marker = int(line.split()[1], 16)
        continue
    if line.startswith("INSTANCE "):
        a, b = line.split()[1:3]
        insts.append((int(a, 16), int(b)))
        continue
    if line.startswith("PARTS "):
        parts = [int(x) for x in line.split()[1:5]]
        continue
    if line.startswith("WORKSPACE "):
        a, b = line.split()[1:3]
        ws = (int(a, 16), int(b))
        continue
    if not line.startswith(" ") or marker is None:
        continue
    kind = line[1]
    if kind not in "LSM":
        continue
    addr_s, size_s = line[3:].strip().split(",")
    addr, size = int(addr_s, 16), int(size_s)
    if kind == "L" and addr == marker:
        seen += 1
        on = seen == 1
        continue
    if not on:
        continue
    for i, (base, n) in enumerate(insts):
        if base <= addr < base + n:
            if i < last:
                frame += 1
            last = i
            for l in range((addr - base) // 64, (addr + size - 1 - base) // 64 + 1):
                per_update.setdefault((frame // PASSES, i), set()).add(l)
                union.setdefault(i, set()).add(l)
            break
    else:
        if ws and ws[0] <= addr < ws[0] + ws[1] and last >= 0:
            for l in range((addr - ws[0]) // 64, (addr + size - 1 - ws[0]) // 64 + 1):
                ws_lines.setdefault((frame // PASSES, last), set()).add(l)
if not insts or not per_update:
    sys.exit("hot_lines: no trace (%s)" % graph)
bytes_ = insts[0][1]
mean = sum(len(s) for s in per_update.values()) / len(per_update)
worst = max(len(s) for s in per_update.values())
u = set().union(*union.values())
def ranges(lines):
    out, start, prev = [], None, None
    for l in sorted(lines):
        if start is None: start = prev = l
        elif l == prev + 1: prev = l
        else: out.append((start, prev)); start = prev = l
    if start is not None: out.append((start, prev))
    return ", ".join("%d-%d" % (a * 64, b * 64 + 63) for a, b in out)
print("%s: instance %d bytes (%d lines); per %s %.1f lines touched (%.0f bytes), at most %d; "
      "%d of them over %d instances; union %d lines: %s" % (graph, bytes_, (bytes_ + 63) // 64, "skipped frame" if PASSES == 1 else "update", mean, mean * 64, worst,
      len(per_update), len(insts), len(u), ranges(u)))
if parts:
    hot, lp, mp, pb = parts
    pose = set(range(lp // 64, (lp + pb + 63) // 64)) | set(range(mp // 64, (mp + pb + 63) // 64))
    n = len(per_update)
    def mean(f):
        return sum(len([l for l in s if f(l)]) for s in per_update.values()) / n
    p = mean(lambda l: l in pose)
    h = mean(lambda l: l * 64 < hot and l not in pose)
    c = mean(lambda l: l * 64 >= hot)
    w = sum(len(s) for s in ws_lines.values()) / n
    print("  bytes per update: instance hot part %.0f (of %d) = poses %.0f + the rest %.0f; cold part %.0f; "
          "instance in all %.0f; workspace %.0f (of %d)" % ((p + h) * 64, hot, p * 64, h * 64, c * 64,
          (p + h + c) * 64, w * 64, ws[1] if ws else 0))
