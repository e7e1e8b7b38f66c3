"""The embedded Python API.

>>> import dslc
>>> prog = dslc.compile("examples/edit_distance.bio")
>>> prog.run()["r[6, 7]"]
3
>>> prog.d("kitten", "sitting")[6, 7]      # a function called from Python
3
>>> prog.map("d", ["kitten", "mitten"], "sitting").values
array([3, 3])
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dslc import backends
from dslc.check.calls import arrange, value_fits
from dslc.check.consteval import define_value, kind_of as _kind
from dslc.check.program import CheckedProgram, check_program
from dslc import deep, runlog, timings
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.runtime.parsed import parse
from dslc.runtime import filtered
from dslc.runtime.binding import bind_call, bind_value, check_index_args, check_links
from dslc.lang.fasta import read_text
from dslc.lang.limits import SCRIPT_SETTING, check_map, max_script_bytes
from dslc.lang.types import SeqT
from dslc.lang.results import Axis, MapResult, TableResult, to_array, wrap
from dslc.runtime.script import (ScriptRunner, _labels, backend_globals, columnar_batch,
                                 every_point, run_map, table_axes)
from dslc.check.script import spans_a_box
from dslc.lang.values import Sequence, SeqText
from dslc.lang.records import Records, is_list
from dslc.options import CompileOptions


def _kept(where, shape: tuple, name: str) -> np.ndarray | None:
    """``Program.map``'s ``where`` as the tasks to run (None: all): a map result of
    bools (an absent cell runs nothing) or a bool array, of the map's shape."""
    if where is None:
        return None
    if isinstance(where, MapResult):
        if where.value_type != "bool":
            raise DslcError(f"map({name}, ..., where=...) needs bools, got a map result of "
                            f"{where.value_type}")
        values = where.values
    else:
        values = np.asarray(where)
        if values.dtype != bool:
            raise DslcError(f"map({name}, ..., where=...) needs bools, got {values.dtype}")
    if values.shape != tuple(shape):
        raise DslcError(f"map({name}, ..., where=...) has shape {values.shape}, the map "
                        f"{tuple(shape)}")
    keep = filtered.true_cells(values)
    return None if keep.all() else np.flatnonzero(keep)


@dataclass(frozen=True)
class Stages:
    """Every stage's output for one script, for ``dslc explain`` and the tests."""

    ast: ast.Program
    typed: CheckedProgram


@dataclass(frozen=True)
class Script:
    """A script's text, its name in messages and the directory its data files
    are found in (None: the working directory)."""

    text: str
    name: str
    base_dir: str | None

    @staticmethod
    def file(path: "str | os.PathLike") -> "Script":
        """The script in the file ``path``: UTF-8 text (a byte-order mark is
        skipped), or one DslcError saying why not."""
        if not isinstance(path, (str, os.PathLike)):
            raise DslcError(f"a script file is named by a str or a path, not {_kind(path)}")
        p = Path(path)
        text = read_text(str(p), None, "script", newlines_only=True,
                         limit=(max_script_bytes(), SCRIPT_SETTING))
        return Script(text, str(p), str(p.resolve().parent))

    @staticmethod
    def source(text: str) -> "Script":
        """Source text given directly (``dslc run -c TEXT``)."""
        if not isinstance(text, str):
            raise DslcError(f"a script's source text is a str, not {_kind(text)}")
        return Script(text.removeprefix("\ufeff"), "<string>", None)


def read_source(path_or_source: "str | os.PathLike | Script") -> Script:
    """A path-like (``pathlib.Path``) is a file; a string that names an existing
    file (or ends in .bio) is read, any other string is source text; anything
    else is one DslcError. For the Python API; the command line says which it has."""
    if isinstance(path_or_source, Script):
        return path_or_source
    if isinstance(path_or_source, os.PathLike):
        return Script.file(path_or_source)
    if not isinstance(path_or_source, str):
        raise DslcError(f"dslc.compile takes a file path (a str or a pathlib.Path), the "
                        f"source text (a str) or a dslc.api.Script, not {_kind(path_or_source)}",
                        hint="decode bytes first: data.decode()"
                        if isinstance(path_or_source, (bytes, bytearray)) else None)
    looks_like_path = "\n" not in path_or_source and (
        path_or_source.endswith(".bio") or os.path.exists(path_or_source))
    return Script.file(path_or_source) if looks_like_path else Script.source(path_or_source)


def parse_script(script: Script) -> ast.Program:
    """The script's program, its imports replaced by the imported definitions
    (dslc.check.imports; each file parsed, or read back, on its own text)."""
    from dslc.check.imports import resolve

    return resolve(parse(script.text, script.name), script.base_dir, parse)


def stages(path_or_source: "str | Script", defines: dict | None = None) -> Stages:
    script = read_source(path_or_source)
    defines = _defines(defines)
    tree = parse_script(script)
    return Stages(tree, deep.run(tree.depth, check_program, tree, defines,
                                   base_dir=script.base_dir,
                                   verify=CompileOptions.from_settings().verify_ir))


def compile(path_or_source: "str | Script", defines: dict | None = None,
            backend: str = "auto") -> "Program":
    """Parse and check a script (a path, the source text itself, or a Script).
    ``defines``: ``{const name: value}``, each value checked as ``-D`` checks its
    own (a number, or a string read as ``-D`` reads its text); ``backend``: one of
    ``dslc.backends.names()``."""
    script = read_source(path_or_source)
    defines = _defines(defines)
    backends.resolve(backend)  # an unknown name: one DslcError naming the backends
    tree = parse_script(script)
    verify = CompileOptions.from_settings().verify_ir
    return Program(deep.run(tree.depth, check_program, tree, defines, base_dir=script.base_dir,
                            verify=verify), script.base_dir, backend)


class Program:
    """A checked script. ``run()`` runs it; its functions are attributes."""

    def __init__(self, checked: CheckedProgram, base_dir: str | None, backend: str = "auto"):
        self.checked = checked
        self.base_dir = base_dir
        backends.require(backend)
        self.backend_asked = backend  # a cluster's workers resolve 'auto' for themselves
        self.backend_name = backends.resolve(backend)
        self._backend = None
        self._globals = None
        self._collector = timings.Collector()
        #: where the last run(), call() or map() spent its time (dslc.timings.Timings)
        self.last_timings: timings.Timings | None = None
        self.params, self.params_from_text = {}, False
        #: ``(printed name, value)`` of the last run as its print statements ran, kept
        #: when a later statement fails (``dslc run`` still writes them)
        self.printed_so_far: list = []

    @deep.for_program
    def run(self, backend: str | None = None, quiet: bool = True, params: dict | None = None,
            client=None, gpus=None, progress=None, **kwargs) -> dict:
        """Run the script; returns the printed values by printed name, in order.
        The script's ``param`` values are keyword arguments (``db="x.fasta"``), or
        the dict ``params`` (for a param named ``backend``, ``quiet``, ``params``,
        ``client``, ``gpus`` or ``progress``). ``client`` (a Dask client) or ``gpus``
        (``"all"``, a count, ``"0,2"``): its maps run there (:mod:`dslc.cluster`).
        ``progress``: True for a bar on stderr during each long map (in a terminal
        or a notebook), False for none, or a callable ``f(done, total)`` called as
        groups of tasks finish; None: a bar unless ``quiet`` (the default)."""
        if params is not None and not isinstance(params, Mapping):
            raise DslcError(f"run(params=...) takes a dict of param values, not {_kind(params)}",
                            hint="params={'name': value}, or the params as keywords")
        printed, runner = self._run(backend, quiet, {**(params or {}), **kwargs}, False,
                                    progress, client=client, gpus=gpus)
        self._globals = runner.globals
        return dict(printed)

    @deep.for_program
    def run_printed(self, backend: str | None = None, quiet: bool = False, progress=None,
                    **where):
        """``(printed name, value)`` in print order, with the params given by
        :meth:`set_params`; ``where``: ``client``, ``cluster`` or ``gpus``, as for
        :meth:`run`."""
        return self._run(backend, quiet, self.params, self.params_from_text, progress,
                         **where)[0]

    def _run(self, backend, quiet, params: dict, from_text: bool, progress, **where):
        self._collector.reset()
        self.printed_so_far = []
        options = CompileOptions.from_settings()  # (once per run: what its code is made under)
        with _using(backend=backend or self.backend_asked, **where) as pool:
            make = backends.make(backend or self.backend_name, options) if pool is None else \
                _sharded(pool, backend or self.backend_asked, self.base_dir, options)
            runner = ScriptRunner(self.checked, timings.timed(make, self._collector),
                                  self.base_dir, quiet=quiet, params=params,
                                  from_text=from_text, progress=progress)
            return self._timed(lambda: runner.run(self.printed_so_far)), runner

    def _timed(self, run):
        """``run()``, its timings kept in ``last_timings`` (the collector was
        reset where the work began)."""
        try:
            return run()
        finally:
            self.last_timings = self._collector.result()

    def timings_since_run(self) -> timings.Timings:
        """The last run's timings with what was done since it returned and before the
        next: ``dslc run`` aligns a hit table's rows as it prints them (``--align``),
        after the run, and its ``--timings`` then shows them and the wall until then."""
        self.last_timings = self._collector.result()
        return self.last_timings

    def set_params(self, params: dict, from_text: bool = False) -> None:
        """The ``param`` values later runs use (``dslc run``/``explain`` ``--set``:
        text, read as each param's kind)."""
        self.params, self.params_from_text = dict(params), from_text

    @property
    def functions(self) -> list[str]:
        return list(self.checked.functions)

    def _engine(self):
        if self._backend is None:
            if self._globals is None:
                self._globals = backend_globals(self.checked)
            # the options are read once, as the engine every call and map reuses is made
            self._backend = timings.Timed(backends.make(
                self.backend_name, CompileOptions.from_settings())(self.checked, self._globals),
                self._collector)
        return self._backend

    def _map_engine(self, pool):
        """What a map runs on: this program's backend, or a pool's workers."""
        engine = self._engine()
        if pool is None:
            return engine
        return _sharded(pool, self.backend_asked, self.base_dir,
                        engine.options)(self.checked, self._globals)

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.checked.functions:
            raise AttributeError(name)
        return lambda *args: self.call(name, *args)

    @deep.for_program
    def call(self, name: str, *args):
        """Call a function: all arguments give one value; only the calling
        arguments give its whole table (a recursive function's, or a plain one's
        over the positions, symbols and model elements they fix)."""
        tf = self._function(name)
        values = [self._from_python(a) for a in args]
        if len(values) == len(tf.params):
            values = _texts(tf.params, arrange(tf.params, values, value_fits))
            tf = self._const_kinds(tf, tf.params, [values])
        elif len(values) == len(tf.calling_params):
            tf = self._const_kinds(tf, tf.calling_params, [values])
        engine = self._engine()
        self._collector.reset()
        return self._timed(lambda: self._call(engine, name, tf, values))

    def _call(self, engine, name, tf, values):
        if len(values) == len(tf.params):
            bound = bind_call(tf, values, self.checked, None)
            raw = engine.value(name, bound, None, name)
            runlog.ran(engine, "call", name)
            return wrap(raw, tf.ret.name)
        if tf.is_table and len(values) == len(tf.calling_params):
            bound = self._bind_calling(tf, values)
            raw = engine.table(name, bound, None, name)
            runlog.ran(engine, "table", name)
            flat = to_array(raw, tf.ret.name).reshape(raw.shape)
            return TableResult(name, tf.ret.name, flat, table_axes(tf, bound, self.checked))
        if not tf.is_table and len(values) == len(tf.calling_params) \
                and spans_a_box([p.type for p in tf.rec_params]):
            return every_point(engine, self.checked, tf, values, None, name)
        raise DslcError(f"{name} takes {len(tf.params)} arguments"
                        + (f" (or its {len(tf.calling_params)} calling ones)" if tf.is_table else "")
                        + f", got {len(values)}")

    @deep.for_program
    def map(self, name: str, *operands, where=None, client=None, gpus=None,
            progress=False) -> MapResult:
        """Run ``name`` over the cross product of the list operands (other
        operands are broadcast), as ``map`` does in a script; on a Dask
        ``client``'s workers or on ``gpus`` (``"all"``, a count, ``"0,2"``)
        where given (:mod:`dslc.cluster`). ``where``: a map result of bools (or
        a bool array) of the map's shape; only its true tasks run, as a script's
        ``map(f, ... where keep)``, and the others' cells are None. ``progress``:
        as for :meth:`run` (True, False or ``f(done, total)``)."""
        tf = self._function(name)
        params = tf.map_params
        if len(operands) != len(params):
            raise DslcError(f"map({name}, ...) needs {len(params)} operands, got {len(operands)}")
        ops = [[self._from_python(x) for x in o] if isinstance(o, (list, tuple))
               else self._from_python(o) for o in operands]
        lists = [(k, v) for k, v in enumerate(ops) if is_list(v)]
        shape = tuple(len(v) for _, v in lists)
        check_map(shape, name, None)
        kept = _kept(where, shape, name)
        count = math.prod(shape)
        batch = self._columnar(tf, ops, lists, shape)
        if batch is not None:  # loaded records: no task made, the same buffers every call
            batch = batch if kept is None else batch.subset(kept)
            with _using(client=client, gpus=gpus, backend=self.backend_asked) as pool:
                engine = self._map_engine(pool)
                results = engine.map(name, batch, None) if len(batch) else []
            runlog.ran(engine, f"map of {len(batch)} tasks", name)
            arr = filtered.scatter(results, kept, count, tf.ret.name).reshape(shape)
            return MapResult(name, tf.ret.name, arr, tuple(
                Axis(params[k].name, _labels(v)) for k, v in lists))
        combos = []
        for combo in itertools.product(*(v for _, v in lists)):
            values = list(ops)
            for (k, _), item in zip(lists, combo):
                values[k] = item
            combos.append(values)
        if kept is not None:
            combos = [combos[k] for k in kept.tolist()]
        tf = self._const_kinds(tf, params, combos)
        tasks = [self._bind_map(tf, values) for values in combos]
        self._collector.reset()
        with _using(client=client, gpus=gpus, backend=self.backend_asked) as pool:
            engine = self._map_engine(pool)
            results = self._timed(lambda: run_map(engine, name, tasks, None, progress)) \
                if tasks else []
        runlog.ran(engine, f"map of {len(tasks)} tasks", name)
        arr = filtered.scatter(results, kept, count, tf.ret.name).reshape(shape)
        return MapResult(name, tf.ret.name, arr,
                         tuple(Axis(params[k].name, tuple(_label(x) for x in v)) for k, v in lists))

    @deep.for_program
    def trace(self, name: str, *args):
        """The derivation of one call (``call``'s arguments, or one ``map`` task's):
        a :class:`dslc.trace.derive.Derivation` (docs/api.md, "Tracebacks")."""
        return _trace(self, name, args)

    @deep.for_program
    def traces(self, name: str, calls) -> list:
        """The derivations of several calls of ``name``, each given by its arguments as
        :meth:`trace` takes them (a search's top hits): their tables are filled by
        one backend call, the calls in parallel (dslc.trace.run)."""
        bound = [_trace_call(self, name, tuple(args)) for args in calls]
        return _trace_runner(self).traces(name, bound, None)

    def align(self, derivation, matrix=None):
        """The alignment a derivation over two sequences describes
        (:class:`dslc.trace.align.Alignment`); ``matrix`` (a name or a matrix) decides
        similar positions, by default the first matrix among the traced call's arguments."""
        from dslc.trace.align import alignment
        return alignment(derivation, self._from_python(matrix) if matrix is not None else None)

    def load(self, path: str, alphabet: str) -> Records:
        """The records of a FASTA file (plain or gzipped) over one of the script's
        alphabets, packed in one buffer as a script's ``load`` gives them. A map
        over them binds no task one by one, and the backend keeps what it made
        of them (the CUDA backend, their copy on the device) across calls for as
        long as the records are alive."""
        from dslc.lang.fasta import read_fasta

        if alphabet not in self.checked.alphabets:
            raise DslcError(f"the script has no alphabet '{alphabet}'",
                            hint="alphabets: " + ", ".join(self.checked.alphabets))
        return read_fasta(str(path), self.checked.alphabets[alphabet])

    def value(self, name: str):
        """A value the script or the standard library defines, by name: a
        matrix (``"blosum62"``), a model of a ``define`` block, a ``const``, or,
        after ``run()``, a global the script computed."""
        for where in (self.checked.defined, self.checked.consts, self._globals or {}):
            if name in where:
                return where[name]
        known = sorted({*self.checked.defined, *self.checked.consts, *(self._globals or {})})
        raise DslcError(f"the script defines no value '{name}'",
                        hint="values: " + (", ".join(known) or "none"))

    def _from_python(self, v):
        """A Python argument as a script value: a string naming a matrix or
        model the script or the standard library defines stands for it; see
        also :func:`_from_python`."""
        if isinstance(v, str) and v in self.checked.defined:
            return self.checked.defined[v]
        return _from_python(v)

    def _const_kinds(self, tf, params, calls: list[list]):
        """``tf`` as checked for these calls from Python: a ``const`` parameter
        given a float in any of them (a map's tasks may mix ints and floats) is
        typed float, the whole program checked again with it (as a float in a
        script's own call would be; see check.program)."""
        sig = self.checked.signatures[tf.name]
        new = {(tf.name, p.name) for values in calls for p, v in zip(params, values)
               if isinstance(v, float) and not math.isinf(v) and sig.int_const(p.name)}
        if not new:
            return tf
        self.checked = check_program(self.checked.ast, dict(self.checked.consts),
                                     self.checked.registry, self.base_dir,
                                     self.checked.float_consts | new,
                                     verify=CompileOptions.from_settings().verify_ir)
        self._backend = None
        return self._function(tf.name)

    def _columnar(self, tf, ops: list, lists: list, shape):
        """A map over loaded records (``dslc.read_fasta``, a script's ``load``) as
        columns over their packed buffers (runtime.script.columnar_batch): a
        backend keeps what it made of a buffer (the CUDA backend its device copy)
        for as long as the records live, so the same records searched by many
        calls are packed and uploaded once."""
        if not lists or not all(isinstance(v, Records) for _, v in lists):
            return None
        tf = self._const_kinds(tf, tf.map_params, [ops])
        return columnar_batch(tf, self.checked, _texts(tf.map_params, ops), lists, shape,
                              [None] * len(ops), None,
                              lambda i, p: f"operand '{p.name}' of map({tf.name}, ...)")

    def _bind_map(self, tf, values):
        params = tf.map_params
        values = _texts(params, values)
        raw = dict(zip((p.name for p in params), values))
        task = {p.name: bind_value(v, p.type, self.checked, None, raw,
                                   what=f"operand '{p.name}' of map({tf.name}, ...)")
                for p, v in zip(params, values)}
        check_index_args(tf, task, None)
        check_links(tf, task, self.checked, None)
        return task

    def _bind_calling(self, tf, values):
        values = _texts(tf.calling_params, values)
        raw = dict(zip((p.name for p in tf.calling_params), values))
        bound = {p.name: bind_value(v, p.type, self.checked, None, raw,
                                    what=f"argument '{p.name}' of {tf.name}")
                 for p, v in zip(tf.calling_params, values)}
        check_links(tf, bound, self.checked, None)
        return bound

    def _function(self, name: str):
        tf = self.checked.functions.get(name)
        if tf is None:
            raise DslcError(f"the script has no function '{name}'",
                            hint="functions: " + ", ".join(self.checked.functions))
        return tf


def _defines(defines) -> dict | None:
    """``compile``'s ``defines``, each value checked as ``-D`` checks its own
    (dslc.check.consteval.define_value): never a string joined to a number by
    the arithmetic, nor a NaN that the backends would each take differently."""
    if defines is None:
        return None
    if not isinstance(defines, Mapping):
        raise DslcError(f"defines takes a dict of const values, not {_kind(defines)}",
                        hint="defines={'gap': 4}")
    return {name: define_value(name, v) for name, v in defines.items()}


def _using(backend: str, **where):
    """``dslc.cluster.using``; the cluster package is imported only when a pool is
    asked for (``client``, ``cluster`` or ``gpus`` given): a run on this process
    alone needs none of it."""
    if all(v is None for v in where.values()):
        return contextlib.nullcontext()
    from dslc import cluster
    return cluster.using(backend=backend, **where)


def _sharded(pool, backend: str, base_dir, options):
    from dslc import cluster
    return cluster.sharded(pool, backend, base_dir, options)


def _from_python(v):
    """numpy scalars become Python numbers; numpy integer arrays stay as they
    are and are taken as already-encoded sequences by the binder; Biopython's
    ``Seq`` and ``SeqRecord`` (recognised by their module, so Biopython is not
    needed) and numpy character arrays become sequence text."""
    if isinstance(v, np.generic):
        return v.item()
    module = type(v).__module__
    if module == "Bio.SeqRecord":
        return SeqText(str(v.id), str(v.seq))
    if module == "Bio.Seq":
        return SeqText(_shown(str(v)), str(v))
    if isinstance(v, np.ndarray) and v.ndim == 1 and _one_char(v.dtype):
        chars = v.astype(str)
        return SeqText("<array>", "".join(chars.tolist()))
    return v


def _one_char(dtype) -> bool:
    """An array of single characters (``np.array(list("ACGT"))``); an array of
    longer strings is several sequences, never joined into one."""
    return (dtype.kind, dtype.itemsize) in (("U", 4), ("S", 1))


def _texts(params, values: list) -> list:
    """Strings given for sequence parameters as sequence text (so their lower
    case is folded as FASTA's is); strings for symbols stay as they are."""
    return [SeqText(f'"{_shown(v)}"', v) if isinstance(v, str) and isinstance(p.type, SeqT)
            else v for p, v in zip(params, values)]


def _shown(text: str) -> str:
    return text if len(text) <= 20 else text[:17] + "..."


def _label(x) -> str:
    """The label of one item of a listed map operand on its result's axis."""
    if isinstance(x, str):
        return _shown(x)
    if isinstance(x, (SeqText, Sequence)):
        return x.name
    if isinstance(x, np.ndarray):
        return "<array>"
    return str(getattr(x, "name", x))


def _trace(prog, name: str, args: tuple):
    """The derivation of one call of ``name`` (``_trace_call``'s arguments)."""
    bound, final = _trace_call(prog, name, args)
    return _trace_runner(prog).trace(name, bound, None, final)


def _trace_call(prog, name: str, args: tuple) -> tuple[dict, bool]:
    """A traced call's bound arguments, and whether they are a map task's (its final
    cell): arguments are those of ``Program.call`` (every argument: that call's
    value) or of ``Program.map`` for one task (a table's calling arguments and its
    unranged ``int`` recursive ones: the final cell, as a map's task has it)."""
    tf = prog._function(name)
    values = [prog._from_python(a) for a in args]
    if len(values) == len(tf.params):
        values = _texts(tf.params, arrange(tf.params, values, value_fits))
        tf = prog._const_kinds(tf, tf.params, [values])
        bound, final = bind_call(tf, values, prog.checked, None), False
    elif tf.is_table and len(values) == len(tf.map_params):
        tf = prog._const_kinds(tf, tf.map_params, [values])
        bound, final = prog._bind_map(tf, values), True
    else:
        raise DslcError(f"trace of {name} takes its {len(tf.params)} arguments"
                        + (f" (or a map task's {len(tf.map_params)})" if tf.is_table else "")
                        + f", got {len(values)}")
    return bound, final


def _trace_runner(prog):
    """One runner per checked program (a float const checks it again: a new one)."""
    from dslc.trace.run import TraceRunner

    engine = prog._engine()
    held = getattr(prog, "_trace_runner", None)
    if held is None or held.program is not prog.checked or held.engine_of is not engine:
        from dslc.runtime import fill_process

        held = TraceRunner(prog.checked, prog._globals, engine)
        # (the backend that fills its tables: a GPU run's own CPU backend)
        held.fills = fill_process.started(prog.checked, held.engine, prog.base_dir)
        prog._trace_runner = held
    return held
