"""Probes of hunt 5 (objects, containers, NumPy views and out=, closures, SciPy, realistic programs) that pass.

Each module lists PROBES = [(name, function, args[, kwargs])]; `passing_probes()` yields those that are expected to
pass both modes of check_derivatives. EXCLUDED names fail or are refused: the failures are strict xfails in
tests/test_regress_hunt5.py, the rest are honest refusals or points where finite differences cannot work."""
import importlib

MODULES = ["objects", "objects_more", "objects_protocols", "properties", "containers", "numpy_views", "numpy_more",
           "numpy_in_place", "closures", "realistic", "training", "aliasing", "helpers", "augmented", "state",
           "reflection", "arguments", "scipy_cases", "simulations", "model_fitting", "outputs", "input_mutation",
           "class_state", "decorators", "caches", "dict_idioms", "dict_overrides"]

EXCLUDED = {
    # honest refusals (dict keys from inputs, optimisers, module-level writes, generators that mutate, ...)
    "containers": {"ordered_dict", "dict_comprehension"},
    "closures": {"partial_method", "generator_mutating", "decorator_cache", "global_dict_write", "global_list_set",
                 "global_stmt", "method_bound_stored"},
    "objects_more": {"obj_as_key", "reflected_ops", "instance_dict_update"},
    "objects_protocols": {"setattr_override", "dunder_new"},
    "numpy_more": {"astype_int_then_float", "ndenumerate_probe", "nditer_probe", "ndindex_probe"},
    "numpy_views": {"int_array_float_write", "float32_input"},  # a jump at the point; float32 rounding
    "numpy_in_place": {"round_method_out", "nan_to_num_copy_false", "greater_out_float"},
    "helpers": {"helper_global_counter"},
    "augmented": {"ipow_idiv"},
    "state": {"itertools_count_global", "local_count"},
    "reflection": {"partial_attrs", "closure_cells", "fn_attr_state", "fn_attr_array", "locals_dict"},
    "aliasing": {"may_share"},
    "class_state": {"class_attr_set_from_input"},
    "decorators": {"deco_stack"},
    "caches": {"cached_property_like"},
    "dict_idioms": {"dict_merge_star", "dict_fromkeys", "dict_fromkeys_shared_list", "dict_max_by_value"},
    "dict_overrides": {"dict_zip_duplicates", "kwargs_override", "kwargs_call_override"},
    "scipy_cases": {"minimize_value", "minimize_x", "root_scalar_probe", "fsolve_probe", "curve_fit_probe",
                    "least_squares_probe"},
}


def passing_probes():
    """(id, function, args, kwargs) of every probe expected to pass."""
    for mod_name in MODULES:
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        skip = EXCLUDED.get(mod_name, set())
        for item in mod.PROBES:
            name, f, args = item[0], item[1], item[2]
            if name in skip:
                continue
            yield f"{mod_name}.{name}", f, args, (item[3] if len(item) > 3 else {})
