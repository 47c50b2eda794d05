"""Differentiate an ordinary Python function and show the generated derivative module."""
import math

import mooncake_ast as mc


def f(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
    return s


if __name__ == "__main__":
    y, dy = mc.jvp(f, (0.3, 5), (1.0, None))
    h = 1e-6
    fd = (f(0.3 + h, 5) - f(0.3 - h, 5)) / (2 * h)
    print(f"f(0.3, 5) = {y:.6f}   df/dx = {dy:.6f}   (finite differences: {fd:.6f})")
    print()
    print(f"Generated forward-mode module ({mc.differentiate(f).source_path('forward')}):")
    print(mc.source(f, "forward"))
    g = mc.grad(f)(0.3, 5)
    print(f"Reverse mode: df/dx = {g:.6f}.  Generated reverse-mode module ({mc.differentiate(f).source_path('reverse')}):")
    print(mc.source(f, "reverse"))
