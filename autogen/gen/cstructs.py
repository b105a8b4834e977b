"""C structs/unions/enums from upstream headers -> C++ definitions with asserted layouts.

clang-19 parses the upstream header (with rawgpu's small shims, autogen/shims/) and dumps its AST
as JSON; this module rebuilds every record and enum as C++ with fixed-width types. A probe
program compiled against the same upstream header and shims reports sizeof/alignof/offsetof for
every emitted record and member; those numbers become static_asserts in the generated header, so
a generated struct that does not match upstream does not compile. The same probe list is also
emitted as a pair of layout-check sources (upstream C vs generated C++) that the test suite
compiles when the upstream cache is present.
"""

import json
import os
import re
import subprocess
import tempfile

from .emit import header_preamble, cpp_ident

CLANG = "clang-19"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIMS = os.path.join(HERE, "shims")

_INT_TYPES = {
    "unsigned char": "uint8_t", "signed char": "int8_t", "char": "char",
    "unsigned short": "uint16_t", "short": "int16_t",
    "unsigned int": "uint32_t", "int": "int32_t",
    "unsigned long": "uint64_t", "long": "int64_t",
    "unsigned long long": "uint64_t", "long long": "int64_t", "_Bool": "bool",
}
_IMPLICIT = {"__NSConstantString_tag", "__va_list_tag"}


class Member:
    def __init__(self, name, ctype, dims, bits=None, record=None):
        self.name = name          # None: anonymous struct/union member
        self.ctype = ctype        # canonical C type text (desugared), or None for inline records
        self.dims = dims          # "[4][2]" or ""
        self.bits = bits
        self.record = record      # inline (anonymous-type) record


class Record:
    def __init__(self, rid, tag, name):
        self.id = rid
        self.tag = tag
        self.name = name
        self.typedefs = []
        self.members = []
        self.packed = False

    def cname(self):
        """How C code names the type (for the probe)."""
        if self.name:
            return f"{self.tag} {self.name}"
        return self.typedefs[0]

    def cppname(self):
        return self.name or self.typedefs[0]


class Enum:
    def __init__(self, name, consts):
        self.name = name
        self.consts = consts
        self.typedefs = []


def _split_dims(t):
    m = re.match(r"^(.*?)\s*((?:\[\d*\])*)$", t)
    return m.group(1).strip(), m.group(2)


def _parse_record(node, records, order):
    rec = Record(node["id"], node.get("tagUsed", "struct"), node.get("name") or None)
    last_nested = None
    for ch in node.get("inner", []):
        k = ch["kind"]
        if k in ("PackedAttr", "MaxFieldAlignmentAttr"):
            rec.packed = True
        elif k == "RecordDecl":
            sub = _parse_record(ch, records, order)
            last_nested = sub
            if sub.name and ch.get("completeDefinition"):
                records[sub.id] = sub
                order.append(sub)
        elif k == "FieldDecl":
            t = ch["type"].get("desugaredQualType", ch["type"]["qualType"])
            bits = None
            if ch.get("isBitfield"):
                bits = int(ch["inner"][0]["value"])
            if ch.get("isImplicit") or not ch.get("name"):
                rec.members.append(Member(None, None, "", record=last_nested))
            elif "(unnamed" in t or "(anonymous" in t:
                _base, dims = _split_dims(t)
                rec.members.append(Member(ch["name"], None, dims, record=last_nested))
            else:
                base, dims = _split_dims(t)
                rec.members.append(Member(ch["name"], base, dims, bits))
    return rec


def _enum_consts(node):
    out = []
    nxt = 0
    for ch in node.get("inner", []):
        if ch["kind"] != "EnumConstantDecl":
            continue
        v = nxt
        for sub in ch.get("inner", []):
            if "value" in sub:
                v = int(sub["value"])
        out.append((ch["name"], v))
        nxt = v + 1
    return out


def parse_tu(tu_path, include_dirs, defines):
    cmd = [CLANG, "-x", "c", "-std=gnu11", "-fsyntax-only", "-nostdinc", "-I", SHIMS]
    cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines]
    cmd += ["-Xclang", "-ast-dump=json", tu_path]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"clang failed on {tu_path}:\n{res.stderr[:4000]}")
    ast = json.loads(res.stdout)
    records, order, enums, typedef_target, enum_ids = {}, [], [], {}, {}
    scalar_typedefs = {}
    for node in ast.get("inner", []):
        k = node["kind"]
        if node.get("isImplicit") or node.get("name") in _IMPLICIT:
            continue
        if k == "RecordDecl" and node.get("completeDefinition"):
            rec = _parse_record(node, records, order)
            records[rec.id] = rec
            order.append(rec)
        elif k == "EnumDecl":
            e = Enum(node.get("name") or None, _enum_consts(node))
            enum_ids[node["id"]] = e
            enums.append(e)
        elif k == "TypedefDecl":
            target = None
            for sub in node.get("inner", []):
                if "ownedTagDecl" in sub:
                    target = sub["ownedTagDecl"]["id"]
                for sub2 in sub.get("inner", []):
                    if "decl" in sub2:
                        target = sub2["decl"]["id"]
            if target in records:
                records[target].typedefs.append(node["name"])
            elif target in enum_ids:
                enum_ids[target].typedefs.append(node["name"])
            typedef_target[node["name"]] = target
            if target not in records and target not in enum_ids:
                t = node["type"].get("desugaredQualType", node["type"]["qualType"])
                scalar_typedefs[node["name"]] = t
    # Anonymous records only reachable through a typedef get that name.
    order = [r for r in order if r.name or r.typedefs]
    return order, records, enums, scalar_typedefs


class Group:
    """One generated header: upstream headers (or a snippet of one) -> namespace."""

    def __init__(self, name, ns, out_rel, sources, package, tu_text, include_dirs, defines=(),
                 keep=None, const_files=(), const_keep=None, probe_prelude="", what=""):
        self.name = name
        self.ns = ns
        self.out_rel = out_rel
        self.sources = sources
        self.package = package
        self.tu_text = tu_text
        self.include_dirs = include_dirs
        self.defines = list(defines)
        self.keep = keep                  # regex over record/enum names (None: all)
        self.const_files = const_files    # upstream files whose integer #defines are emitted
        self.const_keep = const_keep
        self.probe_prelude = probe_prelude
        self.what = what


def _map_base(base, recs_by_name, enums_by_name, typedefs):
    base = re.sub(r"\s+", " ", re.sub(r"\b(const|volatile)\b", "", base)).strip()
    if base in _INT_TYPES:
        return _INT_TYPES[base]
    if base.endswith("*"):
        return "uint64_t"
    m = re.match(r"^(struct|union|enum)\s+(\w+)$", base)
    if m:
        kind, n = m.groups()
        return f"{kind} {n}"
    if base in typedefs:
        t = typedefs[base]
        if t in _INT_TYPES or t.endswith("*") or t in typedefs:
            return _map_base(t, recs_by_name, enums_by_name, typedefs)
        return t
    raise RuntimeError(f"unmapped C type '{base}'")


def _emit_record_body(rec, ind, tmap, lines):
    for m in rec.members:
        if m.record is not None and not m.record.members:
            continue  # `struct {} x;` (DECLARE_FLEX_ARRAY shim): size 0 in GNU C, 1 in C++
        if m.record is not None:
            lines.append(f"{ind}{m.record.tag} {{")
            _emit_record_body(m.record, ind + "  ", tmap, lines)
            nm = f" {cpp_ident(m.name)}{m.dims}" if m.name else ""
            lines.append(f"{ind}}}{nm};")
            continue
        t = tmap(m.ctype)
        dims = m.dims
        if dims.startswith("[]"):
            dims = "[0]" + dims[2:]  # flexible array member (GNU zero-length form)
        if m.bits is not None:
            if m.bits == 0:
                lines.append(f"{ind}{t} : 0;")
            else:
                lines.append(f"{ind}{t} {cpp_ident(m.name)} : {m.bits};")
        else:
            lines.append(f"{ind}{t} {cpp_ident(m.name)}{dims};")


def _probe_members(rec, prefix=""):
    """(C member path, C++ member path) of every named, non-bitfield member (through anonymous
    members, whose fields are accessed directly)."""
    out = []
    for m in rec.members:
        if m.record is not None and not m.record.members:
            continue
        if m.record is not None and m.name is None:
            out += _probe_members(m.record, prefix)
        elif m.name and m.bits is None and not (m.ctype and m.ctype.endswith("struct {}")):
            out.append((prefix + m.name, prefix + cpp_ident(m.name)))
    return out


def _bitfields(rec, prefix=""):
    out = []
    for m in rec.members:
        if m.record is not None and not m.record.members:
            continue
        if m.record is not None and m.name is None:
            out += _bitfields(m.record, prefix)
        elif m.record is not None and not m.dims:
            out += _bitfields(m.record, prefix + m.name + ".")
        elif m.name and m.bits:
            out.append((prefix + m.name, prefix + cpp_ident(m.name)))
    return out


def _is_empty(rec):
    return not rec.members


def generate_group(upstream, g):
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "tu.c")
        with open(tu, "w") as f:
            f.write(g.tu_text)
        inc = [d.replace("@UP@", upstream) for d in g.include_dirs]
        order, records, enums, scalars = parse_tu(tu, inc, g.defines)
        keep = re.compile(g.keep) if g.keep else None
        # Roots: kept records + everything they reference.
        by_name = {}
        for r in order:
            if r.name:
                by_name[f"{r.tag} {r.name}"] = r
            for t in r.typedefs:
                by_name[t] = r
        enum_by = {}
        for e in enums:
            if e.name:
                enum_by[f"enum {e.name}"] = e
            for t in e.typedefs:
                enum_by[t] = e
        # Typedefs of records/enums as C++ spellings.
        tdefs = {}
        for r in order:
            for t in r.typedefs:
                tdefs[t] = f"{r.tag} {r.cppname()}"
        for e in enums:
            for t in e.typedefs:
                tdefs[t] = f"enum {e.name or t}"
        for t, target in scalars.items():
            tdefs.setdefault(t, _split_dims(target)[0])
        # Resolve typedef chains (arrays of typedefs are not desugared by clang).
        def canon(ct, depth=0):
            ct = re.sub(r"\s+", " ", re.sub(r"\b(const|volatile)\b", "", ct)).strip()
            if ct in by_name or ct in enum_by or ct in _INT_TYPES or depth > 20:
                return ct
            if ct in scalars:
                b, d = _split_dims(scalars[ct])
                return canon(b, depth + 1) + d
            return ct

        def canon_rec(r):
            for m in r.members:
                if m.record is not None:
                    canon_rec(m.record)
                elif m.ctype:
                    b, d = _split_dims(canon(m.ctype))
                    m.ctype = b
                    m.dims = d + m.dims
        for r in records.values():
            canon_rec(r)
        roots = [r for r in order if keep is None or keep.fullmatch(r.cppname())]
        needed, seen = [], set()

        def visit(r):
            if r.id in seen:
                return
            seen.add(r.id)
            for m in r.members:
                if m.record is not None:
                    for mm in _walk_types(m.record):
                        dep = by_name.get(mm)
                        if dep:
                            visit(dep)
                elif m.ctype and m.ctype in by_name:
                    visit(by_name[m.ctype])
            needed.append(r)

        for r in roots:
            visit(r)
        # Enums: kept ones and the ones fields use.
        used_enums = {m_ct for r in needed for m_ct in _all_ctypes(r) if m_ct in enum_by}
        out_enums = [e for e in enums
                     if (keep is None or (e.name and keep.fullmatch(e.name)))
                     or any(enum_by.get(u) is e for u in used_enums)]

        def tmap(ct):
            b = _map_base(ct, by_name, enum_by, tdefs)
            return b

        # Probe: sizes, alignments, offsets of the upstream definitions.
        probe_lines = []
        for r in needed:
            if _is_empty(r):
                continue
            cn = r.cname()
            probe_lines.append(("S", r.cppname(), None, f"sizeof({cn})"))
            probe_lines.append(("A", r.cppname(), None, f"_Alignof({cn})"))
            for cpath, cpp_path in _probe_members(r):
                probe_lines.append(("O", r.cppname(), cpp_path,
                                    f"__builtin_offsetof({cn}, {cpath})"))
        probe_c = g.tu_text + "\nint printf(const char*, ...);\nint main(void) {\n"
        for kind, rn, mp, expr in probe_lines:
            probe_c += f'  printf("%lu\\n", (unsigned long)({expr}));\n'
        probe_c += "  return 0;\n}\n"
        pc = os.path.join(tmp, "probe.c")
        with open(pc, "w") as f:
            f.write(probe_c)
        exe = os.path.join(tmp, "probe")
        cmd = [CLANG, "-x", "c", "-std=gnu11", "-w", "-I", SHIMS] + [f"-I{d}" for d in inc]
        cmd += [f"-D{d}" for d in g.defines] + [pc, "-o", exe]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"probe for {g.name} failed:\n{res.stderr[:4000]}")
        vals = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()
        vals = [int(v) for v in vals]
        size = {}
        align = {}
        offs = {}
        for (kind, rn, mp, _e), v in zip(probe_lines, vals):
            if kind == "S":
                size[rn] = v
            elif kind == "A":
                align[rn] = v
            else:
                offs.setdefault(rn, []).append((mp, v))

    # Emit the header.
    lines = header_preamble(g.what, [f"{g.package}: {s}" for s in g.sources])
    lines += ["#include <cstddef>", "#include <cstdint>", "",
              f"namespace {g.ns} {{", ""]
    consts = _consts(upstream, g, {r.cppname() for r in needed} | {e.name for e in out_enums})
    if consts:
        lines.append("// Constants (#define).")
        for n, v in consts:
            t = "uint64_t" if v > 0xFFFFFFFF else "uint32_t"
            lines.append(f"inline constexpr {t} {cpp_ident(n)} = 0x{v:x};")
        lines.append("")
    for e in out_enums:
        vals_ = [v for _, v in e.consts]
        if any(v < 0 for v in vals_):
            ut = "int32_t"
        elif any(v > 0xFFFFFFFF for v in vals_):
            ut = "uint64_t"
        else:
            ut = "uint32_t"
        nm = f" {e.name or e.typedefs[0]}" if (e.name or e.typedefs) else ""
        lines.append(f"enum{nm} : {ut} {{")
        for cn, v in e.consts:
            lit = f"{v}" if v < 0 else f"0x{v:x}"
            lines.append(f"  {cpp_ident(cn)} = {lit},")
        lines.append("};")
        for t in e.typedefs:
            if e.name and t != e.name:
                lines.append(f"using {t} = enum {e.name};")
        lines.append("")
    nrec = 0
    for r in needed:
        n = r.cppname()
        if r.packed and n in align:
            lines.append(f"#pragma pack(push, {align[n]})")
        lines.append(f"{r.tag} {n} {{")
        _emit_record_body(r, "  ", tmap, lines)
        lines.append("};")
        if r.packed and n in align:
            lines.append("#pragma pack(pop)")
        for t in r.typedefs:
            if t != n:
                lines.append(f"using {t} = {r.tag} {n};")
        if n in size:
            lines.append(f"static_assert(sizeof({n}) == {size[n]});")
            lines.append(f"static_assert(alignof({n}) == {align[n]});")
            for mp, v in offs.get(n, []):
                lines.append(f"static_assert(offsetof({n}, {mp}) == {v});")
        lines.append("")
        nrec += 1
    lines += [f"}}  // namespace {g.ns}", ""]
    header = "\n".join(lines)

    # Layout-check sources for the test suite: the same list, one side compiled against
    # upstream (C), the other against the generated header (C++). Bit-fields are located by
    # setting one to all ones in a zeroed object: value = first set bit * 256 + bit count.
    bfs = [(r, c, cp) for r in needed if not _is_empty(r) for c, cp in _bitfields(r)]
    n_all = len(probe_lines) + len(bfs)
    up = ["/* GENERATED by autogen/rawgpu-autogen: upstream side of the layout check. */",
          g.tu_text.rstrip(), "",
          "static unsigned long rg_bits(const unsigned char* p, unsigned long n) {",
          "  unsigned long first = ~0ul, count = 0;",
          "  for (unsigned long i = 0; i < n * 8; ++i)",
          "    if (p[i / 8] >> (i % 8) & 1) { if (first == ~0ul) first = i; ++count; }",
          "  return first * 256 + count;",
          "}",
          f"void rg_layout_{g.name}_upstream(unsigned long* out);",
          f"void rg_layout_{g.name}_upstream(unsigned long* out) {{",
          "  volatile unsigned long long ones = ~0ull;",
          "  (void)ones;"]
    for i, (kind, rn, mp, expr) in enumerate(probe_lines):
        up.append(f"  out[{i}] = (unsigned long)({expr});")
    for j, (r, c, _cp) in enumerate(bfs):
        i = len(probe_lines) + j
        up.append(f"  {{ {r.cname()} x; __builtin_memset(&x, 0, sizeof x); x.{c} = ones; "
                  f"out[{i}] = rg_bits((const unsigned char*)&x, sizeof x); }}")
    up += ["}", ""]
    cpp = ["// GENERATED by autogen/rawgpu-autogen: rawgpu side of the layout check.",
           "#include <cstddef>", "#include <cstring>", "",
           f'#include "rawgpu/autogen/{g.out_rel}"', "",
           f"extern const unsigned long rg_layout_{g.name}_count;",
           f"extern const char* const rg_layout_{g.name}_names[];",
           f"void rg_layout_{g.name}_rawgpu(unsigned long* out);",
           f"const unsigned long rg_layout_{g.name}_count = {n_all};",
           "namespace {",
           "[[maybe_unused]] unsigned long rg_bits(const unsigned char* p, unsigned long n) {",
           "  unsigned long first = ~0ul, count = 0;",
           "  for (unsigned long i = 0; i < n * 8; ++i)",
           "    if (p[i / 8] >> (i % 8) & 1) {",
           "      if (first == ~0ul) first = i;",
           "      ++count;",
           "    }",
           "  return first * 256 + count;",
           "}",
           "}  // namespace",
           f"void rg_layout_{g.name}_rawgpu(unsigned long* out) {{",
           f"  using namespace {g.ns};",
           "  volatile unsigned long long ones = ~0ull;",
           "  (void)ones;"]
    names = []
    for i, (kind, rn, mp, _e) in enumerate(probe_lines):
        expr = {"S": f"sizeof({rn})", "A": f"alignof({rn})",
                "O": f"offsetof({rn}, {mp})"}[kind]
        cpp.append(f"  out[{i}] = {expr};")
        names.append({"S": f"sizeof {rn}", "A": f"alignof {rn}", "O": f"offsetof {rn}.{mp}"}[kind])
    for j, (r, _c, cp) in enumerate(bfs):
        i = len(probe_lines) + j
        rn = r.cppname()
        cpp.append(f"  {{ {rn} x; std::memset(static_cast<void*>(&x), 0, sizeof x); "
                   f"x.{cp} = static_cast<decltype(x.{cp})>(ones); "
                   f"out[{i}] = rg_bits(reinterpret_cast<const unsigned char*>(&x), sizeof x); }}")
        names.append(f"bitfield {rn}.{cp}")
    cpp += ["}", f"const char* const rg_layout_{g.name}_names[] = {{"]
    cpp += [f'    "{n}",' for n in names]
    cpp += ["};", ""]
    probe_lines = probe_lines + bfs
    return header, "\n".join(up), "\n".join(cpp), (nrec, len(out_enums), len(consts),
                                                   len(probe_lines))


def _walk_types(rec):
    for m in rec.members:
        if m.record is not None:
            yield from _walk_types(m.record)
        elif m.ctype:
            yield m.ctype


def _all_ctypes(rec):
    return list(_walk_types(rec))


def _consts(upstream, g, taken):
    from . import cmacros
    out = []
    seen = set()
    for rel in g.const_files:
        d = cmacros.read_defines(rel.replace("@UP@", upstream))
        for n, v in cmacros.int_defines(d).items():
            if n in taken or n in seen or n.endswith("_H") or n.startswith("_"):
                continue
            if g.const_keep and not re.fullmatch(g.const_keep, n):
                continue
            if v < 0:
                continue
            seen.add(n)
            out.append((n, v))
    return out
