"""The progress watcher: one message per derivation that outlives its deadline, none for quick ones."""
import time

from mooncake_ast import progress


def test_a_long_derivation_is_announced_once(capfd):
    token = progress.start("mooncake_ast: deriving slow.f", 0.05)
    time.sleep(0.6)  # several polls past the deadline: still one line
    progress.end(token)
    assert capfd.readouterr().err == "mooncake_ast: deriving slow.f\n"


def test_quick_derivations_say_nothing(capfd):
    for _ in range(200):
        progress.end(progress.start("mooncake_ast: deriving quick.f", 5.0))
    time.sleep(0.3)
    assert capfd.readouterr().err == ""


def test_nested_derivations_each_keep_their_own_deadline(capfd):
    outer = progress.start("outer", 0.1)
    inner = progress.start("inner", 10.0)
    time.sleep(0.5)
    progress.end(inner)
    progress.end(outer)
    assert capfd.readouterr().err == "outer\n"


def test_the_watcher_wakes_again_after_it_blocked(capfd, monkeypatch):
    monkeypatch.setattr(progress, "LINGER_S", 0.0)
    progress.end(progress.start("first", 10.0))
    time.sleep(0.5)  # the watcher has nothing left to do: it blocks
    token = progress.start("second", 0.05)
    time.sleep(0.5)
    progress.end(token)
    assert capfd.readouterr().err == "second\n"


def test_a_short_deadline_wakes_a_polling_watcher(capfd, monkeypatch):
    """A deadline shorter than the watcher's poll (a test setting PROGRESS_AFTER_S = 0) is met although the
    watcher was asleep until its next poll when the derivation began."""
    monkeypatch.setattr(progress, "POLL_S", 5.0)
    progress.end(progress.start("first", 10.0))  # the watcher now sleeps up to 5 s
    time.sleep(0.1)
    token = progress.start("second", 0.0)
    time.sleep(0.3)
    progress.end(token)
    assert capfd.readouterr().err == "second\n"
