"""Tables as pandas DataFrames when pandas is importable, else as lists of dicts."""

import array as _array

try:  # numpy and pandas are optional: without pandas every table is a list of dicts
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None
try:
    import pandas as _pd
except ImportError:  # pragma: no cover - depends on the machine
    _pd = None

# trainscope._core's type codes (those of Python's array module) as numpy dtypes.
_DTYPES = {"q": "<i8", "i": "<i4", "d": "<f8", "b": "?"}


def have_pandas():
    return _pd is not None


def column_array(type_code, buffer):
    """A numeric column of trainscope._core: a numpy array over its buffer (no copy), or an
    array.array without numpy."""
    if _np is not None:
        return _np.frombuffer(buffer, dtype=_DTYPES[type_code])
    values = _array.array(type_code, bytes(buffer))
    return values


def from_columns(columns_and_categories):
    """A table from trainscope._core's (columns, categories): coded columns become categoricals
    (DataFrame) or their names (list of dicts)."""
    columns, categories = columns_and_categories
    arrays = {name: column_array(*column) for name, column in columns.items()}
    if _pd is not None:
        data = {}
        for name, values in arrays.items():
            if name in categories:
                data[name] = _pd.Categorical.from_codes(values, categories=categories[name])
            else:
                data[name] = values
        return _pd.DataFrame(data)
    names = list(arrays)
    decoded = []
    for name in names:
        values = arrays[name].tolist()  # plain Python numbers in the dicts
        if name in categories:
            labels = categories[name]
            values = [labels[code] if code >= 0 else None for code in values]
        elif columns[name][0] == "b":
            values = [bool(v) for v in values]
        decoded.append(values)
    return [dict(zip(names, row)) for row in zip(*decoded)]


def flatten(row, prefix=""):
    """A JSON object of nested objects as one row: {"device": {"idle_pct": 3}} becomes
    {"device.idle_pct": 3} (as pandas.json_normalize names them); lists stay cells."""
    out = {}
    for key, value in row.items():
        name = prefix + key
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def from_rows(rows, columns=None):
    """A table from a list of JSON objects (flattened); `columns` names the columns of an empty
    table."""
    flat = [flatten(r) for r in rows]
    if _pd is not None:
        if not flat and columns:
            return _pd.DataFrame(columns=columns)
        return _pd.DataFrame(flat)
    return flat
