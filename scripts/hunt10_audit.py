"""hunt10 audit: every probe of tests/hunt10_cases.py under every check of tests/hunt10_kit.py; prints one line per
(probe, check) that is not ok and a table of transformation x outcome.  Usage: python scripts/hunt10_audit.py [names]"""
import collections
import sys
import time
import warnings

sys.path.insert(0, "tests")
import hunt10_kit as K  # noqa: E402

warnings.simplefilter("ignore")
only = set(sys.argv[1:])
table = collections.defaultdict(collections.Counter)
t0 = time.time()
for name, kind, cname, args in K.all_params():
    if only and name not in only:
        continue
    t = time.time()
    status, detail = K.classify(kind, cname, name, args)
    table[f"{kind}:{cname}"][status] += 1
    if status != "ok":
        print(f"{status:8s} {name:26s} {cname:14s} {detail}", flush=True)
    if time.time() - t > 5:
        print(f"slow     {name:26s} {cname:14s} {time.time() - t:.1f}s", flush=True)
print(f"\n{'check':22s} ok WRONG CRASH REFUSED   ({time.time() - t0:.0f}s)")
for k in sorted(table):
    c = table[k]
    print(f"{k:22s} {c['ok']:2d} {c['WRONG']:5d} {c['CRASH']:5d} {c['REFUSED']:7d}")
