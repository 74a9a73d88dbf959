"""Generate core/groundkit/site/web_app/languages/<algorithm>.js: the Snowball stemmers the core
uses (snowballstemmer's generated Python, the release the core pins), translated statement by
statement into JavaScript, with each language's stop word sets (adr/0054).

    python tests/data/js/make_stemmers.py          # rewrite the files
    python tests/data/js/make_stemmers.py --check  # exit 1 if one is not current (the tests run it)

snowballstemmer's modules are Snowball's own Python output: a class of methods over a cursor,
``try``/``except labN`` for Snowball's failure labels, and ``Among`` tables. Each translates
one to one (a label becomes a labelled block, ``raise labN()`` its ``break``); the runtime,
``languages/snowball.js``, mirrors ``basestemmer.py`` over an array of code points, so every
length and index counts code points as Python's str does. English is the core's own
(``groundkit.analysis.snowball``), checked here to stem as snowballstemmer's English does on
its vocabulary before that translation ships for it.
"""

from __future__ import annotations

import ast
import json
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "core"))

from groundkit.analysis.languages import ELISIONS, LANGUAGES  # noqa: E402
from groundkit.analysis.stopwords import STOPWORD_SETS  # noqa: E402
from groundkit.site.js_capable import JS_LANGUAGES  # noqa: E402

TARGET = REPO / "core/groundkit/site/web_app/languages"


class _Function:
    """The translation of one method: its locals and its labels."""

    def __init__(self, klass: str) -> None:
        self.klass = klass
        self.locals: list[str] = []
        self.labels: list[tuple[str, str]] = []  # (python label, js label), innermost last
        self.count = 0


def _name(method: str) -> str:
    return method.lstrip("_") if method != "_stem" else "_stem"


def _expr(node: ast.expr, fn: _Function) -> str:
    if isinstance(node, ast.Constant):
        if node.value is True:
            return "true"
        if node.value is False:
            return "false"
        if node.value is None:
            return "null"
        if isinstance(node.value, int):
            return str(node.value)
        return json.dumps(node.value, ensure_ascii=True)
    if isinstance(node, ast.Name):
        if node.id in ("self",):
            return "this"
        return node.id
    if isinstance(node, ast.Attribute):
        assert isinstance(node.value, ast.Name), ast.unparse(node)
        if node.value.id == "self":
            return f"this.{_name(node.attr)}"
        assert node.value.id == fn.klass, ast.unparse(node)
        return node.attr  # a class table: a module constant
    if isinstance(node, ast.Subscript):
        return f"{_expr(node.value, fn)}[{_expr(node.slice, fn)}]"
    if isinstance(node, ast.Call):
        func = node.func
        args = ", ".join(_expr(a, fn) for a in node.args)
        assert not node.keywords, ast.unparse(node)
        if isinstance(func, ast.Name) and func.id == "len":
            return f"{args}.length"
        return f"{_expr(func, fn)}({args})"
    if isinstance(node, ast.Compare):
        assert len(node.ops) == 1, ast.unparse(node)
        ops = {ast.Eq: "===", ast.NotEq: "!==", ast.Lt: "<", ast.LtE: "<="}
        ops |= {ast.Gt: ">", ast.GtE: ">="}
        op = ops[type(node.ops[0])]
        return f"({_expr(node.left, fn)} {op} {_expr(node.comparators[0], fn)})"
    if isinstance(node, ast.BoolOp):
        op = " || " if isinstance(node.op, ast.Or) else " && "
        return "(" + op.join(_expr(v, fn) for v in node.values) + ")"
    if isinstance(node, ast.UnaryOp):
        op = {ast.Not: "!", ast.USub: "-"}[type(node.op)]
        return f"{op}{_expr(node.operand, fn)}"
    if isinstance(node, ast.BinOp):
        op = {ast.Add: "+", ast.Sub: "-"}[type(node.op)]
        return f"({_expr(node.left, fn)} {op} {_expr(node.right, fn)})"
    if isinstance(node, ast.Tuple):
        return "[" + ", ".join(_expr(e, fn) for e in node.elts) + "]"
    raise AssertionError(f"untranslated expression: {ast.unparse(node)}")


def _label_of(node: ast.Raise) -> str:
    exc = node.exc
    assert isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name), ast.unparse(node)
    return exc.func.id


def _block(body: list[ast.stmt], fn: _Function, pad: str) -> list[str]:
    out: list[str] = []
    for stmt in body:
        out.extend(_stmt(stmt, fn, pad))
    return out


def _stmt(node: ast.stmt, fn: _Function, pad: str) -> list[str]:
    if isinstance(node, ast.Assign):
        assert len(node.targets) == 1
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id not in fn.locals:
            fn.locals.append(target.id)
        return [f"{pad}{_expr(target, fn)} = {_expr(node.value, fn)};"]
    if isinstance(node, ast.AugAssign):
        op = {ast.Add: "+=", ast.Sub: "-="}[type(node.op)]
        return [f"{pad}{_expr(node.target, fn)} {op} {_expr(node.value, fn)};"]
    if isinstance(node, ast.Expr):
        return [f"{pad}{_expr(node.value, fn)};"]
    if isinstance(node, ast.Return):
        value = "" if node.value is None else " " + _expr(node.value, fn)
        return [f"{pad}return{value};"]
    if isinstance(node, ast.Pass):
        return []
    if isinstance(node, ast.Break):
        return [f"{pad}break;"]
    if isinstance(node, ast.Continue):
        return [f"{pad}continue;"]
    if isinstance(node, ast.Raise):
        wanted = _label_of(node)
        for python, js in reversed(fn.labels):
            if python == wanted:
                return [f"{pad}break {js};"]
        raise AssertionError(f"{wanted} raised outside its handler")
    if isinstance(node, ast.If):
        out = [f"{pad}if ({_expr(node.test, fn)}) {{", *_block(node.body, fn, pad + "  ")]
        orelse = node.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If):
            inner = orelse[0]
            out += [f"{pad}}} else if ({_expr(inner.test, fn)}) {{"]
            out += _block(inner.body, fn, pad + "  ")
            orelse = inner.orelse
        if orelse:
            out += [f"{pad}}} else {{", *_block(orelse, fn, pad + "  ")]
        return [*out, f"{pad}}}"]
    if isinstance(node, ast.While):
        assert not node.orelse
        return [
            f"{pad}while ({_expr(node.test, fn)}) {{",
            *_block(node.body, fn, pad + "  "),
            f"{pad}}}",
        ]
    if isinstance(node, ast.For):
        assert isinstance(node.target, ast.Name) and not node.orelse
        return [
            f"{pad}for (const {node.target.id} of {_expr(node.iter, fn)}) {{",
            *_block(node.body, fn, pad + "  "),
            f"{pad}}}",
        ]
    if isinstance(node, ast.Try):
        assert len(node.handlers) == 1 and not node.orelse and not node.finalbody
        handler = node.handlers[0]
        assert isinstance(handler.type, ast.Name) and handler.name is None
        fn.count += 1
        js = f"{handler.type.id}_{fn.count}"
        fn.labels.append((handler.type.id, js))
        body = _block(node.body, fn, pad + "  ")
        fn.labels.pop()
        return [f"{pad}{js}: {{", *body, f"{pad}}}", *_block(handler.body, fn, pad)]
    raise AssertionError(f"untranslated statement: {ast.unparse(node)}")


def _among(node: ast.expr, fn: _Function) -> str:
    assert isinstance(node, ast.Call) and ast.unparse(node.func) == "Among", ast.unparse(node)
    args = [_expr(a, fn) for a in node.args[:3]]
    if len(node.args) == 4:
        method = node.args[3]
        assert isinstance(method, ast.Name)
        args.append(f"(s) => s.{_name(method.id)}()")
    return f"among({', '.join(args)})"


def translate(algorithm: str) -> str:
    """The JS module of snowballstemmer's ``<algorithm>_stemmer`` (its stemmer only)."""
    import snowballstemmer

    source = Path(snowballstemmer.__file__).parent / f"{algorithm}_stemmer.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    tables: list[str] = []
    fields: list[str] = []
    methods: list[str] = []
    for node in klass.body:
        if isinstance(node, ast.Expr):  # the docstring
            continue
        fn = _Function(klass.name)
        if isinstance(node, ast.FunctionDef):
            body = _block(node.body, fn, "    ")
            head = [f"    let {', '.join(fn.locals)};"] if fn.locals else []
            methods += [f"  {_name(node.name)}() {{", *head, *body, "  }", ""]
            continue
        assert isinstance(node, ast.Assign) and len(node.targets) == 1, ast.unparse(node)
        target = node.targets[0]
        assert isinstance(target, ast.Name)
        value = node.value
        if isinstance(value, ast.Set):
            items = sorted(_expr(e, fn) for e in value.elts)
            tables.append(f"const {target.id} = new Set([{', '.join(items)}]);")
        elif isinstance(value, ast.List):
            rows = ",\n".join(f"  {_among(e, fn)}" for e in value.elts)
            tables.append(f"const {target.id} = [\n{rows},\n];")
        elif isinstance(value, ast.Constant) and target.id.startswith("g_"):
            assert isinstance(value.value, str)  # a grouping as a str: `char in "aeo"`
            items = sorted(json.dumps(c, ensure_ascii=True) for c in value.value)
            tables.append(f"const {target.id} = new Set([{', '.join(items)}]);")
        elif isinstance(value, ast.Tuple):
            tables.append(f"const {target.id} = {_expr(value, fn)};")
        else:
            fields.append(f"    this.{target.id} = {_expr(value, fn)};")
    constructor = ["  constructor() {", "    super();", *fields, "  }", ""]
    return "\n".join(
        [
            f"class {klass.name} extends BaseStemmer {{",
            *constructor,
            *methods,
            "}",
            "",
            *tables,
        ]
    )


def _stopwords(algorithm: str) -> dict[str, list[str]]:
    names = (f"snowball-{algorithm}", f"lucene-{algorithm}")
    return {name: sorted(STOPWORD_SETS[name]) for name in names if name in STOPWORD_SETS}


def render(algorithm: str) -> str:
    release = f"snowballstemmer {metadata.version('snowballstemmer')}"
    dump = lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))  # noqa: E731
    klass = f"{algorithm.title()}Stemmer"
    return (
        f"// Generated by tests/data/js/make_stemmers.py from {release}'s {algorithm}_stemmer.py\n"
        "// (Snowball's Python output; BSD-3-Clause, see LICENSE-snowball.txt) and groundkit's\n"
        "// stop word sets: do not edit.\n"
        'import { BaseStemmer, among } from "./snowball.js";\n\n'
        f"export const RELEASE = {json.dumps(release)};\n"
        f"export const STOPWORDS = {dump(_stopwords(algorithm))};\n"
        f"export const ELISIONS = {dump(sorted(ELISIONS.get(algorithm, ())))};\n\n"
        f"{translate(algorithm)}\n\n"
        f"const stemmer = new {klass}();\n"
        "/** The stem of one lower-cased word, as the core's stemmer of this language has it. */\n"
        "export const stem = (word) => stemmer.stemWord(word);\n"
    )


def algorithms() -> list[str]:
    return sorted(set(LANGUAGES.values()))


def catalog() -> str:
    """languages/catalog.js: the language codes, the release, the languages the JS path ships."""
    release = f"snowballstemmer {metadata.version('snowballstemmer')}"
    dump = lambda value: json.dumps(value, separators=(",", ":"))  # noqa: E731
    return (
        "// Generated by tests/data/js/make_stemmers.py from groundkit.analysis.languages and\n"
        "// groundkit.site.js_capable: do not edit.\n"
        f"export const LANGUAGES = {dump(dict(sorted(LANGUAGES.items())))};\n"
        f"export const RELEASE = {json.dumps(release)};\n"
        f"export const JS_LANGUAGES = {dump(list(JS_LANGUAGES))};\n"
    )


def licence() -> str:
    """snowballstemmer's licence, which the translated stemmers carry."""
    dist = metadata.distribution("snowballstemmer")
    files = [f for f in dist.files or () if f.name in ("COPYING", "LICENSE", "LICENSE.txt")]
    text = "".join(f.read_text() or "" for f in files)
    assert "Redistribution" in text, "snowballstemmer's licence was not found"
    return (
        "The stemmers in this folder are translated by tests/data/js/make_stemmers.py from "
        f"snowballstemmer {dist.version},\nSnowball's generated Python "
        f"(https://snowballstem.org/). Its licence:\n\n{text}"
    )


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    files = {f"{algorithm}.js": (lambda a=algorithm: render(a)) for algorithm in algorithms()}
    files["catalog.js"] = catalog
    files["LICENSE-snowball.txt"] = licence
    for name, make in files.items():
        target = TARGET / name
        text = make()
        if check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if stale:
        names = ", ".join(map(str, stale))
        print(f"not current: {names}; run python tests/data/js/make_stemmers.py")
        return 1
    if not check:
        print(f"wrote {len(algorithms())} stemmers under {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
