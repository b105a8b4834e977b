"""Reading C #define constants: integer object-like macros, shift helpers, NVIDIA hi:lo ranges."""

import ast
import re

_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)$")


def read_defines(path):
    """[(name, params or None, body)] in file order; continuation lines joined, comments cut."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = text.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = re.sub(r"//.*", "", line)
        m = _DEFINE.match(line)
        if not m:
            continue
        name, has_params, params, body = m.groups()
        plist = [p.strip() for p in params.split(",")] if has_params else None
        out.append((name, plist, body.strip()))
    return out


_INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)\b")
_CAST = re.compile(r"\(\s*(?:unsigned|signed|int|long|uint\d+_t|int\d+_t|u\d+|NvU\d+|NvS\d+|"
                   r"unsigned\s+int|unsigned\s+long|unsigned\s+long\s+long)\s*\)")


class _Eval(ast.NodeVisitor):
    def __init__(self, env):
        self.env = env

    def visit_Expression(self, n):
        return self.visit(n.body)

    def visit_Constant(self, n):
        if isinstance(n.value, int):
            return n.value
        raise ValueError("not an int")

    def visit_Name(self, n):
        if n.id in self.env:
            return self.env[n.id]
        raise ValueError(f"unknown {n.id}")

    def visit_UnaryOp(self, n):
        v = self.visit(n.operand)
        if isinstance(n.op, ast.Invert):
            return ~v
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.UAdd):
            return v
        raise ValueError("op")

    def visit_BinOp(self, n):
        a, b = self.visit(n.left), self.visit(n.right)
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.FloorDiv: lambda: a // b, ast.LShift: lambda: a << b,
               ast.RShift: lambda: a >> b, ast.BitAnd: lambda: a & b, ast.BitOr: lambda: a | b,
               ast.BitXor: lambda: a ^ b, ast.Mod: lambda: a % b}
        for k, f in ops.items():
            if isinstance(n.op, k):
                return f()
        raise ValueError("op")

    def generic_visit(self, n):
        raise ValueError(f"unsupported {type(n).__name__}")


def eval_int(expr, env):
    """Evaluates a C integer constant expression (literals, known macros, + - * / << >> & | ~)."""
    e = re.sub(r"'([^'\\])'", lambda m: str(ord(m.group(1))), expr)  # 'F' -> 70
    e = _CAST.sub(" ", e)
    e = _INT.sub(lambda m: m.group(1) if not m.group(1).startswith("0") or m.group(1) == "0"
                 or m.group(1)[:2] in ("0x", "0X") else str(int(m.group(1), 8)), e)
    e = e.replace("/", "//").replace("&&", " and ").replace("||", " or ")
    if "?" in e or "'" in e or '"' in e:
        raise ValueError("unsupported")
    tree = ast.parse(e.strip(), mode="eval")
    return _Eval(env).visit(tree)


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def enum_constants(path, enum_name):
    """[(name, value)] of the enumerators of `enum <enum_name> { ... }` in file order. An
    enumerator without an initializer is the previous value + 1 (0 for the first); an initializer
    is a constant expression that may name earlier enumerators."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    m = re.search(r"\benum\s+" + re.escape(enum_name) + r"\s*\{([^}]*)\}", text)
    if m is None:
        raise RuntimeError(f"{path}: no `enum {enum_name}`")
    env = {}
    out = []
    nxt = 0
    for item in m.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        name, eq, expr = (p.strip() for p in item.partition("="))
        if not _IDENT.match(name) or (eq and not expr):
            raise RuntimeError(f"{path}: enum {enum_name}: cannot read enumerator `{item}`")
        try:
            v = eval_int(expr, env) if eq else nxt
        except (ValueError, SyntaxError) as e:
            raise RuntimeError(f"{path}: enum {enum_name}: {name} = {expr}: {e}") from None
        env[name] = v
        out.append((name, v))
        nxt = v + 1
    return out


def int_defines(defines, env=None):
    """{name: value} for object-like macros that evaluate to integers (in order)."""
    env = dict(env or {})
    out = {}
    for name, params, body in defines:
        if params is not None or not body:
            continue
        try:
            v = eval_int(body, env)
        except (ValueError, SyntaxError, ZeroDivisionError, RecursionError):
            continue
        env[name] = v
        out[name] = v
    return out


_RANGE = re.compile(r"^\(?\s*([^:?]+?)\s*\)?\s*:\s*\(?\s*([^:?]+?)\s*\)?$")


def range_defines(defines, env=None):
    """{name: (hi, lo)} for NVIDIA-style `#define X hi:lo` bit ranges."""
    env = env or {}
    out = {}
    for name, params, body in defines:
        if params is not None or ":" not in body or "?" in body:
            continue
        m = _RANGE.match(body)
        if not m:
            continue
        try:
            hi = eval_int(m.group(1), env)
            lo = eval_int(m.group(2), env)
        except (ValueError, SyntaxError):
            continue
        if hi < lo:
            continue
        out[name] = (hi, lo)
    return out


_SHIFT_HELPER = [
    re.compile(r"^\(*\(?(\w+)\)?\s*<<\s*(\w+)\)*$"),                       # ((x) << n)
    re.compile(r"^\(*\(?(\w+)\)?\s*&\s*(0[xX][0-9a-fA-F]+|\d+)\)\s*<<\s*(\w+)\)*$"),  # (((x) & m) << n)
]


def shift_helpers(defines, env):
    """{name: (shift, width or 0)} for one-parameter macros `((x) << n)` / `(((x) & m) << n)`."""
    out = {}
    for name, params, body in defines:
        if params is None or len(params) != 1:
            continue
        b = body.replace(" ", "")
        p = params[0]
        m = _SHIFT_HELPER[0].match(b)
        if m and m.group(1) == p:
            try:
                out[name] = (eval_int(m.group(2), env), 0)
            except (ValueError, SyntaxError):
                pass
            continue
        m = _SHIFT_HELPER[1].match(b)
        if m and m.group(1) == p:
            try:
                mask = eval_int(m.group(2), env)
                shift = eval_int(m.group(3), env)
            except (ValueError, SyntaxError):
                continue
            if mask & (mask + 1) == 0 and mask:
                out[name] = (shift, mask.bit_length())
    return out
