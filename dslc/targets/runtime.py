"""The runtime helpers generated code calls: one table, every target's spelling.

Each helper is a small function that generated modules carry: the checks the language
makes run-time errors (an index outside a sequence, ``inf - inf``, a negative
probability...) and a few numeric helpers. A helper that can *fail* raises on the CPU,
where a failed check stops the task and the interpreter reports the error; a GPU kernel
cannot raise, so its device variant ``NAME_f(F, tid, ...)`` sets the task's failure
flag and returns a harmless value (index 0, NaN), and the backend re-runs the flagged
tasks on the CPU (emit.cuda). Whether a helper can fail is what decides, for every
generator, whether a plan needs a failure flag or must be refused (a SIMD pack
or a whole-GPU wavefront has no task to re-run): the printers record the helpers they
spell (targets.printer), nothing searches generated text for their names.

``group`` says which modules carry a helper: ``core`` every module, ``domain`` CPU
tasks (recursive-argument checks), ``demand`` CPU tasks evaluated on demand
(emit.demand), ``device`` GPU modules only. Sources are written without their
decorator; the printer adds the target's.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.lang.builtins import MATH, MathBuiltin


@dataclass(frozen=True)
class Helper:
    name: str
    fails: bool  # can stop a task (raises on the CPU, flags the task on a GPU)
    group: str  # core | domain | demand | device: which modules carry it
    host: str | None  # numba.njit source, None where the CPU has no such helper
    device: str | None  # numba-cuda device source (a failing helper's flagged NAME_f)


HELPERS = (
    Helper('_undef', True, 'core',
           host='''\
def _undef(v):
    if v != v:
        raise ValueError("undefined arithmetic (inf - inf, 0 * inf or inf / inf)")
    return v
''',
           device='''\
def _undef_f(F, tid, v):
    if v != v:
        F[tid] = 1
    return v
'''),
    Helper('_logaddexp', False, 'core',
           host='''\
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a < b:
        a, b = b, a
    return a + np.log1p(np.exp(b - a))
''',
           device='''\
def _logaddexp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))
'''),
    Helper('_inexact', True, 'core',
           host='''\
def _inexact(v):
    if (v >= 9007199254740992.0 or v <= -9007199254740992.0) and v != np.inf and v != -np.inf:
        raise ValueError("an int beyond 2^53: the interpreter recomputes it exactly")
    return v
''',
           device='''\
def _inexact_f(F, tid, v):
    if (v >= 9007199254740992.0 or v <= -9007199254740992.0) and v != math.inf and v != -math.inf:
        F[tid] = 1
    return v
'''),
    Helper('_to_log', True, 'core',
           host='''\
def _to_log(x):
    if x < 0.0 or x != x or x == np.inf:
        raise ValueError("a probability cannot be negative or infinite")
    if x == 0.0:
        return -np.inf
    return np.log(x)
''',
           device='''\
def _to_log_f(F, tid, x):
    if x < 0.0 or x != x or x == math.inf:
        F[tid] = 1
        return math.nan
    if x == 0.0:
        return -math.inf
    return math.log(x)
'''),
    Helper('_neg_prob', True, 'core',
           host='''\
def _neg_prob():
    raise ValueError("a probability cannot be negative")
''',
           device='''\
def _neg_prob_f(F, tid):
    F[tid] = 1
    return math.nan
'''),
    Helper('_chk', True, 'core',
           host='''\
def _chk(i, n):
    if i < 0 or i >= n:
        raise IndexError("sequence index out of range")
    return i
''',
           device='''\
def _chk_f(F, tid, i, n):
    if i < 0 or i >= n:
        F[tid] = 1
        return 0
    return i
'''),
    Helper('_to_index', True, 'core',
           host='''\
def _to_index(x):
    if x != x or x == np.inf or x == -np.inf:
        raise ValueError("an infinite value used as an index")
    return np.int64(x)
''',
           device='''\
def _to_index_f(F, tid, x):
    if x != x or x == math.inf or x == -math.inf:
        F[tid] = 1
        return np.int64(0)
    return np.int64(x)
'''),
    # math.floor, not numpy's ufunc (numba-cuda types no numpy ufunc in device code);
    # the float is kept (a device's floor of a float64 is one, the simulator's Python
    # floor an int that cannot hold inf or NaN, which pass through unchanged)
    Helper('_floor', False, 'core',
           host=None,
           device='''\
def _floor(x):
    if x != x or x == math.inf or x == -math.inf:
        return x
    return float(math.floor(x))
'''),
    Helper('_fmod_floor', True, 'core',
           host='''\
def _fmod_floor(a, b):
    if b == 0:
        raise ZeroDivisionError("remainder by zero")
    return _undef(a - b * np.floor(a / b))
''',
           device='''\
def _fmod_floor_f(F, tid, a, b):
    if b == 0:
        F[tid] = 1
        return math.nan
    return _undef_f(F, tid, a - b * _floor(a / b))
'''),
    Helper('_idiv', True, 'core',
           host='''\
def _idiv(a, b):
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    if a == np.inf or a == -np.inf or b == np.inf or b == -np.inf:
        raise ValueError("integer division with an infinite operand")
    return np.floor(a / b)
''',
           device='''\
def _idiv_f(F, tid, a, b):
    if b == 0 or a == math.inf or a == -math.inf or b == math.inf or b == -math.inf:
        F[tid] = 1
        return math.nan
    return _floor(a / b)
'''),
    # ``a ** b`` of ints (lang.arith.power): squaring and multiplying, exact while the
    # result stays below 2^53 (past it the interpreter recomputes it or reports the
    # overflow); a negative or infinite exponent is the language's error
    Helper('_ipow', True, 'core',
           host='''\
def _ipow(a, b):
    if b < 0 or b == np.inf:
        raise ValueError("an int power needs a finite exponent of at least 0")
    if a == np.inf or a == -np.inf:
        if b == 0:
            return 1.0
        if a > 0 or b % 2 == 1:
            return a
        return -a
    r = 1.0
    x = a
    e = b
    while e > 0:
        if e % 2 == 1:
            r = r * x
        e = e // 2
        if e > 0:
            x = x * x
    if r == np.inf or r == -np.inf:
        raise ValueError("an int power beyond 2^53: the interpreter recomputes it exactly")
    return _inexact(r)
''',
           device='''\
def _ipow_f(F, tid, a, b):
    if b < 0 or b == np.inf:
        F[tid] = 1
        return np.nan
    if a == np.inf or a == -np.inf:
        if b == 0:
            return 1.0
        if a > 0 or b % 2 == 1:
            return a
        return -a
    r = 1.0
    x = a
    e = b
    while e > 0:
        if e % 2 == 1:
            r = r * x
        e = e // 2
        if e > 0:
            x = x * x
    if r == np.inf or r == -np.inf:
        F[tid] = 1
        return np.nan
    return _inexact_f(F, tid, r)
'''),
    # ``a ** b`` of floats: IEEE's power where it is a number that fits
    Helper('_fpow', True, 'core',
           host='''\
def _fpow(a, b):
    finite = a != np.inf and a != -np.inf and b != np.inf and b != -np.inf
    if finite and a < 0 and b != np.floor(b):
        raise ValueError("a negative base to a non-integer power")
    if a == 0 and b < 0:
        raise ZeroDivisionError("0.0 to a negative power")
    v = a ** b
    if finite and (v == np.inf or v == -np.inf):
        raise OverflowError("a power too large for a float")
    return v
''',
           device='''\
def _fpow_f(F, tid, a, b):
    finite = a != np.inf and a != -np.inf and b != np.inf and b != -np.inf
    if (finite and a < 0 and b != math.floor(b)) or (a == 0 and b < 0):
        F[tid] = 1
        return np.nan
    v = math.pow(a, b)
    if finite and (v == np.inf or v == -np.inf):
        F[tid] = 1
        return np.nan
    return v
'''),
    Helper('_div', True, 'core',
           host='''\
def _div(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return _undef(a / b)
''',
           device='''\
def _div_f(F, tid, a, b):
    if b == 0:
        F[tid] = 1
        return math.nan
    return _undef_f(F, tid, a / b)
'''),
    Helper('_dom', True, 'domain',
           host='''\
def _dom(v, e):
    if v < 0 or v > e:
        raise IndexError("recursive argument outside its domain")
    return v
''',
           device='''\
def _dom_f(F, tid, v, e):
    if v < 0 or v > e:
        F[tid] = 1
        return 0
    return v
'''),
    Helper('_missing', False, 'domain',
           host='''\
def _missing(m):
    m[0] = 1
    return 0.0
''',
           device=None),
    Helper('_ddom', True, 'demand',
           host='''\
def _ddom(v, e, nd):
    if v < 0 or v > e:
        if nd[0] != 0:
            return 0  # after a placeholder: the body's value is thrown away
        raise IndexError("recursive argument outside its domain")
    return v
''',
           device=None),
    Helper('_ld', True, 'device',
           host=None,
           device='''\
def _ld_f(F, tid, a, i):
    if i < 0 or i >= a.shape[0]:
        F[tid] = 1
        return a.dtype.type(0)
    return a[i]
'''),
    Helper('_ld2', True, 'device',
           host=None,
           device='''\
def _ld2_f(F, tid, a, i, j):
    if i < 0 or i >= a.shape[0] or j < 0 or j >= a.shape[1]:
        F[tid] = 1
        return a.dtype.type(0)
    return a[i, j]
'''),
    Helper('_ld3', True, 'device',
           host=None,
           device='''\
def _ld3_f(F, tid, a, i, j, k):
    if i < 0 or i >= a.shape[0] or j < 0 or j >= a.shape[1] or k < 0 or k >= a.shape[2]:
        F[tid] = 1
        return a.dtype.type(0)
    return a[i, j, k]
'''),
    # an int remainder of indices: on the CPU Numba raises on a zero divisor itself; a
    # device's integer remainder by zero gives a number, so the task is flagged
    Helper('_imod', True, 'device',
           host=None,
           device='''\
def _imod_f(F, tid, a, b):
    if b == 0:
        F[tid] = 1
        return 0
    return a % b
'''),
    Helper('_missing_at', False, 'device',
           host=None,
           device='''\
def _missing_at(m, tid):
    m[tid] = 1
    return 0.0
'''),
    Helper('_result_f', False, 'device',
           host=None,
           device='''\
def _result_f(F, tid, v):
    if F[tid] != 0:
        return math.nan
    return v
'''),
)




def _domain_test(b: MathBuiltin, inf: str) -> str:
    """Where ``b`` is undefined, as a condition on ``x`` (lang.builtins)."""
    tests = []
    if b.below is not None:
        tests.append(f"x {'<=' if b.at_below else '<'} {b.below!r}")
    if b.above is not None:
        tests.append(f"(x > {b.above!r} and x != {inf})")
    return " or ".join(tests)


def math_helper(b: MathBuiltin) -> Helper:
    """The checking helper of a built-in whose domain stops somewhere: the test
    first, then the math function (numpy's would give NaN or inf silently)."""
    name = b.helper()
    host = (f"def {name}(x):\n    if {_domain_test(b, 'np.inf')}:\n"
            f"        raise ValueError(\"{b.name} of a number outside its domain\")\n"
            f"    return np.{b.math}(x)\n")
    device = (f"def {name}_f(F, tid, x):\n    if {_domain_test(b, 'math.inf')}:\n"
              f"        F[tid] = 1\n        return math.nan\n    return math.{b.math}(x)\n")
    return Helper(name, True, "core", host=host, device=device)


HELPERS = HELPERS + tuple(math_helper(b) for b in MATH if b.helper() is not None)

BY_NAME = {h.name: h for h in HELPERS}


def helper(name: str) -> Helper:
    return BY_NAME[name]


def fails(name: str) -> bool:
    """Can helper ``name`` stop a task (a check)?"""
    h = BY_NAME.get(name)
    return h is not None and h.fails
