import numpy as np
def cm(w, *args):
    cat = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat, w)
def f(w, h):
    return np.sum(cm(w, h))
