"""The directory upkeep after a publish is throttled in big directories (cache_evict.after_publish): listing
10,000 names per derivation was a fifth of a test suite's derivation time.  Small directories keep the upkeep at
every publish (an edited function's old entries go at once)."""
from mooncake_ast import cache_evict


class _CountingDir:
    def __init__(self, path, n):
        self.path, self.n, self.listings = path, n, 0

    def names(self):
        self.listings += 1
        return [f"m.f{k}.reverse.{k:016x}.py" for k in range(self.n)]

    def lstat(self, name):
        raise OSError(name)


def _publish(d, monkeypatch_time=None):
    cache_evict.after_publish(d, "m.f0.reverse.0000000000000000.py", None)


def test_small_directories_are_looked_at_every_publish(monkeypatch):
    monkeypatch.setattr(cache_evict, "_look_due", lambda d, names, cap: False)
    d = _CountingDir("/nowhere/small", 10)
    for _ in range(5):
        _publish(d)
    assert d.listings == 5


def test_big_directories_wait_between_looks(monkeypatch):
    monkeypatch.setattr(cache_evict, "_look_due", lambda d, names, cap: False)
    d = _CountingDir("/nowhere/big", cache_evict.BIG_DIR + 100)
    for _ in range(5):
        _publish(d)
    assert d.listings == 1
    monkeypatch.setattr(cache_evict, "UPKEEP_EVERY_S", 0.0)
    _publish(d)
    assert d.listings == 2
