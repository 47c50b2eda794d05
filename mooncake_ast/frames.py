"""Walks up the Python call stack: how per-computation storage (reverse/shadows.py for adjoints of a pullback
called directly, forward/state.py for tangents of state outside the function) finds the outermost generated
frame it belongs to, and whether a later call is still inside it."""
from __future__ import annotations

from types import FrameType
from typing import Callable, Optional


def inside(frame: Optional[FrameType], target: FrameType) -> bool:
    """Is target frame, or one of its callers?"""
    while frame is not None:
        if frame is target:
            return True
        frame = frame.f_back
    return False


def outermost(frame: Optional[FrameType], test: Callable[[FrameType], bool]) -> Optional[FrameType]:
    """The outermost frame from `frame` up (frame, its caller, ...) that passes test; None if none does."""
    found = None
    while frame is not None:
        if test(frame):
            found = frame
        frame = frame.f_back
    return found
