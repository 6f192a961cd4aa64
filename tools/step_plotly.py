"""Make the vendored plotly.js runnable in steps (tools/build_plotly.sh calls this).

esbuild wraps each of the bundle's ~370 CommonJS modules in a lazy ``__commonJS`` thunk and
runs them all at the end, from the entry module: one main-thread task of ~150 ms on a slow
machine. This rewrites three spots so that the bundle, when run, only *defines* the modules
and hands them out instead:

- ``var Plotly=(()=>{`` becomes ``var __plotlySteps=(()=>{``;
- the ``__commonJS`` helper also lists each thunk it makes, in the order esbuild emits them
  (dependencies first), in ``__plotlySteps.steps``;
- the final ``return <entry>();`` becomes ``return {steps:[…], main:<entry>};``.

templates/static/loader.js then calls the thunks a few at a time in tasks of a few ms each
and sets ``window.Plotly = main()``; a bundle without ``__plotlySteps`` (plotly.py's full one)
runs at once as before. Each pattern must be found exactly once, or nothing is changed and
this fails. The text stays plotly.js's (MIT licence, header kept).

It also puts V8's explicit compile hint ``//# allFunctionsCalledOnLoad`` on the first line
(Chromium ≥ 136; other engines read a comment): the page calls most of plotly.js's functions
when it draws its first figure, and compiling each lazily on that first call doubled the
first draw (~340 ms against ~120 ms for the next); with the hint they are compiled with the
script, off the main thread (loader.js loads it as a blob: script).

    python tools/step_plotly.py templates/static/vendor/plotly-custom.min.js.gz
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

MARK = "var __plotlySteps=(()=>{"
HINT = "//# allFunctionsCalledOnLoad\n"  # V8: compile every function eagerly (see above)
HEAD = "var Plotly=(()=>{"
# esbuild's __commonJS helper: var Z=(e,t)=>()=>{try{return t||e((t={exports:{}}).exports,t),
# t.exports}catch(r){throw t=0,r}};
HELPER = re.compile(r"var ([\w$]+)=\((\w),(\w)\)=>\(\)=>\{try\{return \3\|\|\2\(\(\3=\{exports:"
                    r"\{\}\}\)\.exports,\3\),\3\.exports\}catch\((\w)\)\{throw \3=0,\4\}\};")
TAIL = re.compile(r"return ([\w$]+)\(\);\}\)\(\);")


def step(js: str) -> str:
    """The bundle text rewritten to run in steps (see the module doc)."""
    if MARK in js:
        return js if js.startswith(HINT) else HINT + js
    helpers = list(HELPER.finditer(js))
    tails = list(TAIL.finditer(js))
    if js.count(HEAD) != 1 or len(helpers) != 1 or len(tails) != 1:
        raise ValueError(f"not an esbuild plotly.js bundle of the expected shape ({HEAD!r}: "
                         f"{js.count(HEAD)}, __commonJS helper: {len(helpers)}, "
                         f"final return: {len(tails)}; each must be 1)")
    h, t = helpers[0], tails[0]
    if not js.index(HEAD) < h.start() < t.start():
        raise ValueError("plotly.js bundle: head, helper and final return out of order")
    name, e, x, r = h.group(1), h.group(2), h.group(3), h.group(4)
    helper = (f"var __steps=[],{name}=({e},{x})=>{{var f=()=>{{try{{return {x}||{e}(({x}="
              f"{{exports:{{}}}}).exports,{x}),{x}.exports}}catch({r}){{throw {x}=0,{r}}}}};"
              f"__steps.push(f);return f}};")
    out = (js[:h.start()] + helper + js[h.end():t.start()]
           + f"return{{steps:__steps,main:{t.group(1)}}};}})();" + js[t.end():])
    return HINT + out.replace(HEAD, MARK, 1)


def main(argv: list[str]) -> int:
    for name in argv:
        path = Path(name)
        js = gzip.decompress(path.read_bytes()).decode("utf-8")
        stepped = step(js)
        if stepped != js:
            path.write_bytes(gzip.compress(stepped.encode("utf-8"), 9, mtime=0))
        print(f"{path}: {'stepped' if stepped != js else 'already stepped'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
