"""No import cycles and no upward imports in reportgen/: the import graph is read from the source
(every `import` statement, lazy ones inside functions and `TYPE_CHECKING` ones included) and
checked against the layer order written in docs/ARCHITECTURE.md (the ```layers block)."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
Graph = Mapping[str, set[str]]


def modules() -> dict[str, Path]:
    """Dotted name → file, packages by their __init__.py."""
    out = {}
    for path in (ROOT / "reportgen").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _target(name: str, known: Mapping[str, Path]) -> str:
    while name not in known:
        name = name.rpartition(".")[0]
    return name


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for mod, path in known.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                # `from reportgen.sources import diff` imports the module reportgen.sources.diff
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                         for a in node.names]
            else:
                continue
            graph[mod] |= {_target(n, known) for n in names
                           if n == "reportgen" or n.startswith("reportgen.")}
        graph[mod].discard(mod)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    item = stack.pop()
                    on_stack.discard(item)
                    component.append(item)
                    if item == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layers() -> list[tuple[str, list[str]]]:
    block = re.search(r"^```layers\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert block, "docs/ARCHITECTURE.md has no ```layers block"
    out = []
    for line in block.group(1).splitlines():
        name, _, patterns = line.partition(":")
        out.append((name.strip(), patterns.split()))
    return out


def layer_of(module: str, order: list[tuple[str, list[str]]]) -> int:
    """The layer whose patterns name ``module`` (``reportgen.`` left out; ``x.*`` = package x's
    modules); an exact name wins over a package pattern."""
    short = module.removeprefix("reportgen.") if module != "reportgen" else "reportgen"
    for exact in (True, False):
        for i, (_, patterns) in enumerate(order):
            for p in patterns:
                if (exact and p == short) or (
                        not exact and p.endswith(".*") and short.startswith(p[:-1])):
                    return i
    raise AssertionError(f"{module} is in no layer of docs/ARCHITECTURE.md's ```layers block")


def upward(graph: Graph, order: list[tuple[str, list[str]]]) -> list[str]:
    return sorted(f"{m} ({order[layer_of(m, order)][0]}) imports {d} "
                  f"({order[layer_of(d, order)][0]})"
                  for m, deps in graph.items() for d in deps
                  if layer_of(d, order) > layer_of(m, order))


# ------------------------------------------------------------------ the checks on reportgen/

def test_the_graph_is_read_with_lazy_and_type_checking_imports() -> None:
    graph = import_graph()
    assert len(graph) > 80
    assert "reportgen.pipeline" in graph["reportgen.cli"]          # lazy, inside a command
    assert "reportgen.load.round" in graph["reportgen.pipeline"]    # lazy, inside a function
    assert "reportgen.analyze.compare" in graph["reportgen.build"]  # under TYPE_CHECKING
    # `from reportgen.sources import diff`
    assert "reportgen.sources.diff" in graph["reportgen.sources.baseline"]


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" ↔ ".join(c) for c in found)


def test_every_module_has_a_layer_and_imports_only_downward() -> None:
    graph, order = import_graph(), layers()
    assert [name for name, _ in order][:3] == ["base", "load", "analyze"]
    for module in graph:
        layer_of(module, order)
    bad = upward(graph, order)
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def test_the_page_reads_the_analysis_not_the_loader() -> None:
    graph = import_graph()
    reach = sorted(f"{m} imports {d}" for m, deps in graph.items() for d in deps
                   if (m == "reportgen.page" or m.startswith("reportgen.page."))
                   and (d == "reportgen.load.manifest" or d.startswith("reportgen.load")))
    assert not reach, reach


def with_package_inits(graph: Graph) -> dict[str, set[str]]:
    """The graph plus, for each module, the packages it sits in: importing ``a.b.c`` first runs
    ``a/__init__.py`` and ``a/b/__init__.py``, so an ``__init__`` that imports (through any chain)
    a module of its own package is a cycle at start-up."""
    out = {m: set(deps) for m, deps in graph.items()}
    for m in out:
        parts = m.split(".")
        out[m] |= {".".join(parts[:i]) for i in range(1, len(parts))} & set(graph)
        out[m].discard(m)
    return out


def test_no_import_cycle_through_package_inits() -> None:
    found = cycles(with_package_inits(import_graph()))
    assert not found, "import cycles through __init__: " + "; ".join(" ↔ ".join(c) for c in found)


# The size limits of issue 33. The modules and functions over them when the limits came are
# listed with their size then: each may only shrink (split it and drop its line), none may join.
MAX_TOP_MODULES, MAX_MODULE_LINES, MAX_FUNCTION_LINES = 16, 800, 100
LONG_MODULES: dict[str, int] = {}
LONG_FUNCTIONS: dict[str, int] = {}


def test_at_most_16_modules_at_the_top_of_reportgen() -> None:
    top = sorted(p.name for p in (ROOT / "reportgen").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_MODULES, f"{len(top)} modules at the top of reportgen/: {top}"


def sizes() -> tuple[dict[str, int], dict[str, int]]:
    """Lines per module and per function (``path:name``) of reportgen/."""
    mods, funcs = {}, {}
    for path in (ROOT / "reportgen").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        mods[rel] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                key = f"{rel}:{node.name}"
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                funcs[key] = max(funcs.get(key, 0), n)
    return mods, funcs


def over(found: Mapping[str, int], limit: int, known: Mapping[str, int]) -> list[str]:
    return sorted(f"{k}: {n} lines" for k, n in found.items()
                  if n > limit and n > known.get(k, limit))


def test_no_module_over_800_lines_and_no_function_over_100() -> None:
    mods, funcs = sizes()
    assert not over(mods, MAX_MODULE_LINES, LONG_MODULES), over(mods, MAX_MODULE_LINES,
                                                                LONG_MODULES)
    assert not over(funcs, MAX_FUNCTION_LINES, LONG_FUNCTIONS), over(
        funcs, MAX_FUNCTION_LINES, LONG_FUNCTIONS)
    # a listed one that was split must leave the list
    stale = sorted(k for k, n in {**LONG_MODULES, **LONG_FUNCTIONS}.items()
                   if {**mods, **funcs}.get(k, 0) <= (MAX_MODULE_LINES if k.endswith(".py")
                                                       else MAX_FUNCTION_LINES))
    assert not stale, f"now within the limit, drop from the list: {stale}"


# ------------------------------------------------------------------ the checks can fail

def test_a_cycle_and_an_upward_import_are_found() -> None:
    tiny = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(tiny) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    order = [("low", ["x"]), ("high", ["y", "pkg.*"])]
    assert upward({"reportgen.x": {"reportgen.y"}, "reportgen.y": set()}, order) == [
        "reportgen.x (low) imports reportgen.y (high)"]
    assert upward({"reportgen.y": {"reportgen.x"}, "reportgen.x": set()}, order) == []
    assert layer_of("reportgen.pkg.m", order) == 1 and layer_of("reportgen.x", order) == 0
    # page/__init__ importing page.assemble, which imports page.crossover: a start-up cycle
    inits = {"r": set(), "r.page": {"r.page.assemble"}, "r.page.assemble": {"r.page.crossover"},
             "r.page.crossover": set()}
    assert cycles(inits) == []
    assert cycles(with_package_inits(inits)) == [["r.page", "r.page.assemble", "r.page.crossover"]]
    assert over({"a.py": 801, "b.py": 900, "c.py": 950}, 800, {"b.py": 900, "c.py": 940}) == [
        "a.py: 801 lines", "c.py: 950 lines"]
