"""Fetches rawgpu's upstream inputs as Debian packages and extracts the subsets autogen needs.

Cache layout (a contract with the top-level meson.build and other libraries' tests):

  <upstream>/linux/<kernel tree paths>          subset of linux-source-6.12's tarball
  <upstream>/nvidia-open/<tarball paths>         nvidia-open-kernel-source's kernel-module tree
                                                 (modules/nvidia-open-kernel/...)
  <upstream>/firmware/{amdgpu,nvidia}/...        subsets of firmware-amd-graphics and
                                                 firmware-nvidia-graphics (bookworm-backports)

<upstream> is $RAWGPU_UPSTREAM, else ${XDG_CACHE_HOME:-$HOME/.cache}/rawgpu/upstream.

Each package is downloaded with `apt-get download` (no system install), extracted in a single
decompression pass, and marked done with a stamp file naming the package version and the subset.
Re-running is a no-op; a partially filled cache (stamp missing or outdated) is completed.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Packages: (stamp name, apt spec, extraction function name).
LINUX_PKG = "linux-source-6.12"
NVIDIA_PKG = "nvidia-open-kernel-source"
AMD_FW_PKG = "firmware-amd-graphics/bookworm-backports"
NV_FW_PKG = "firmware-nvidia-graphics/bookworm-backports"

_ASIC = "drivers/gpu/drm/amd/include/asic_reg/"
_REG_FILES = {
    "gc": ["gc_9_4_3", "gc_11_0_0", "gc_11_0_3", "gc_11_5_0", "gc_12_0_0"],
    "mmhub": ["mmhub_1_8_0", "mmhub_3_0_0", "mmhub_3_0_1", "mmhub_3_0_2", "mmhub_3_3_0",
              "mmhub_4_1_0"],
    "nbio": ["nbio_4_3_0", "nbio_7_2_0", "nbio_7_7_0", "nbio_7_9_0", "nbio_7_11_0"],
    "nbif": ["nbif_6_3_1"],
    "mp": ["mp_11_0", "mp_13_0_0", "mp_13_0_6", "mp_14_0_2"],
    "hdp": ["hdp_4_4_2", "hdp_6_0_0", "hdp_7_0_0"],
    "oss": ["osssys_4_4_2", "osssys_6_0_0", "osssys_6_1_0", "osssys_7_0_0"],
    "smuio": ["smuio_13_0_2", "smuio_13_0_3", "smuio_13_0_6", "smuio_14_0_2"],
    "sdma": ["sdma_4_4_2"],
}

# Kernel-tree paths (relative to the tarball's top directory). Globs are allowed.
LINUX_PATHS = sorted(
    [f"{_ASIC}{d}/{base}_{kind}.h" for d, bases in _REG_FILES.items() for base in bases
     for kind in ("offset", "sh_mask")] + [
        "drivers/gpu/drm/amd/include/discovery.h",
        "drivers/gpu/drm/amd/include/soc15_hw_ip.h",
        "drivers/gpu/drm/amd/include/soc15_ih_clientid.h",
        "drivers/gpu/drm/amd/include/vega10_enum.h",  # memory/ PTE golden tests (MTYPE)
        "drivers/gpu/drm/amd/include/soc21_enum.h",
        "drivers/gpu/drm/amd/include/soc24_enum.h",
        "drivers/gpu/drm/amd/include/v9_structs.h",
        "drivers/gpu/drm/amd/include/v11_structs.h",
        "drivers/gpu/drm/amd/include/v12_structs.h",
        "drivers/gpu/drm/amd/include/mes_v11_api_def.h",
        "drivers/gpu/drm/amd/include/mes_v12_api_def.h",
        "drivers/gpu/drm/amd/include/ivsrcid/*",
        "drivers/gpu/drm/amd/amdgpu/nvd.h",
        "drivers/gpu/drm/amd/amdgpu/soc15d.h",
        "drivers/gpu/drm/amd/amdgpu/amdgpu_ucode.h",
        "drivers/gpu/drm/amd/amdgpu/amdgpu_vm.h",  # memory/ PTE golden tests
        "drivers/gpu/drm/amd/amdgpu/amdgpu_socbb.h",
        "drivers/gpu/drm/amd/amdgpu/psp_gfx_if.h",
        "drivers/gpu/drm/amd/amdgpu/sdma_v6_0_0_pkt_open.h",
        "drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h",
        "drivers/gpu/drm/amd/amdgpu/navi10_sdma_pkt_open.h",
        "drivers/gpu/drm/amd/amdgpu/amdgpu_doorbell.h",
        "drivers/gpu/drm/amd/amdkfd/kfd_pm4_headers_ai.h",
        "drivers/gpu/drm/amd/amdkfd/kfd_pm4_opcodes.h",
        "drivers/gpu/drm/amd/pm/swsmu/inc/pmfw_if/smu_v13_0_0_ppsmc.h",
        "drivers/gpu/drm/amd/pm/swsmu/inc/pmfw_if/smu_v13_0_6_ppsmc.h",
        "drivers/gpu/drm/amd/pm/swsmu/inc/pmfw_if/smu_v13_0_7_ppsmc.h",
        "drivers/gpu/drm/amd/pm/swsmu/inc/pmfw_if/smu_v14_0_2_ppsmc.h",
        "drivers/gpu/drm/nouveau/include/nvrm/*",
        "drivers/gpu/drm/nouveau/nvkm/subdev/gsp/r535.c",
        "include/uapi/linux/vfio.h",
    ])

NVIDIA_PATHS = sorted([
    "modules/nvidia-open-kernel/common/inc/*.h",
    "modules/nvidia-open-kernel/nvidia-uvm/*.h",
    "modules/nvidia-open-kernel/nvidia-uvm/hwref/*",
])

AMD_FW_GLOBS = sorted([
    f"./lib/firmware/amdgpu/{p}*.bin" for p in (
        "gc_9_4_3_", "gc_11_0_", "gc_12_0_", "psp_13_0_", "psp_14_0_", "smu_13_0_", "smu_14_0_",
        "sdma_4_4_2", "sdma_6_0_", "sdma_7_0_")
])
NV_FW_GLOBS = sorted([
    f"./lib/firmware/nvidia/{chip}/gsp/*" for chip in ("tu102", "tu116", "ga100", "ga102", "ad102")
])


def upstream_dir():
    d = os.environ.get("RAWGPU_UPSTREAM")
    if d:
        return d
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "rawgpu", "upstream")


def _log(msg):
    print(f"autogen fetch: {msg}", flush=True)


def _run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def _download(spec, debs):
    """apt-get download into `debs` unless a .deb of that package is already there."""
    name = spec.split("/")[0]
    have = [f for f in os.listdir(debs) if f.startswith(name + "_") and f.endswith(".deb")]
    if have:
        return os.path.join(debs, sorted(have)[-1])
    _run(["apt-get", "download", "-q", spec], cwd=debs, stdout=subprocess.DEVNULL)
    have = [f for f in os.listdir(debs) if f.startswith(name + "_") and f.endswith(".deb")]
    if not have:
        raise RuntimeError(f"apt-get download {spec} produced no .deb in {debs}")
    return os.path.join(debs, sorted(have)[-1])


def _candidate_versions(specs):
    """{spec: version `apt-get download spec` would fetch} (one apt-cache call, no network)."""
    names = sorted({sp.split("/")[0] for sp in specs})
    out = subprocess.run(["apt-cache", "policy"] + names, check=True, capture_output=True,
                         text=True).stdout
    sections = {}
    cur = None
    for line in out.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            cur = line[:-1]
            sections[cur] = []
        elif cur:
            sections[cur].append(line)
    result = {}
    for sp in specs:
        name, _, release = sp.partition("/")
        lines = sections.get(name, [])
        version = "unknown"
        if not release:
            for line in lines:
                if line.strip().startswith("Candidate:"):
                    version = line.split(":", 1)[1].strip()
        else:
            # The version-table entry served from `release`.
            cand = None
            for line in lines:
                t = line.strip()
                if t.startswith("***"):
                    t = t[3:].strip()
                parts = t.split()
                if len(parts) >= 2 and parts[1].isdigit() and not t.startswith("http"):
                    cand = parts[0]
                elif cand and release in t:
                    version = cand
                    break
        result[sp] = version
    return result


def _stamp_text(spec, version, paths):
    h = hashlib.sha256("\n".join(paths).encode()).hexdigest()[:16]
    return f"{spec} {version} subset:{h}\n"


def _stamp_ok(path, text):
    try:
        with open(path) as f:
            return f.read() == text
    except OSError:
        return False


def _extract_deb_tar(deb, dest, globs):
    """dpkg-deb --fsys-tarfile | tar -x of the matching members into dest."""
    os.makedirs(dest, exist_ok=True)
    p1 = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    p2 = subprocess.run(["tar", "-x", "-C", dest, "--wildcards", "--no-same-owner"] + globs,
                        stdin=p1.stdout)
    p1.stdout.close()
    p1.wait()
    if p2.returncode != 0:
        raise RuntimeError(f"extracting {globs} from {deb} failed")


def _extract_inner_tarball(deb, inner, dest, top, paths):
    """Extracts `paths` (relative to `top` inside the tarball `inner` of `deb`) in one xz pass."""
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        p1 = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
        p2 = subprocess.Popen(["tar", "-xO", inner], stdin=p1.stdout, stdout=subprocess.PIPE)
        p1.stdout.close()
        strip = len([c for c in top.split("/") if c])
        members = [f"{top}/{p}" if top else p for p in paths]
        p3 = subprocess.run(["tar", "-xJ", "-C", tmp, "--wildcards", "--no-same-owner",
                             f"--strip-components={strip}"] + members, stdin=p2.stdout)
        p2.stdout.close()
        p2.wait()
        p1.wait()
        if p3.returncode != 0 or p2.returncode != 0:
            raise RuntimeError(f"extracting from {inner} in {deb} failed")
        # Move into place (overwriting files a partial earlier run may have left).
        for root, _dirs, files in os.walk(tmp):
            rel = os.path.relpath(root, tmp)
            os.makedirs(os.path.join(dest, rel), exist_ok=True)
            for f in files:
                os.replace(os.path.join(root, f), os.path.join(dest, rel, f))


def fetch(args):
    up = os.path.abspath(args.upstream or upstream_dir())
    os.makedirs(up, exist_ok=True)
    debs = os.path.join(up, ".debs")
    os.makedirs(debs, exist_ok=True)
    jobs = [
        ("linux", LINUX_PKG, LINUX_PATHS),
        ("nvidia-open", NVIDIA_PKG, NVIDIA_PATHS),
    ]
    if not args.no_firmware:
        jobs += [("firmware-amd", AMD_FW_PKG, AMD_FW_GLOBS),
                 ("firmware-nvidia", NV_FW_PKG, NV_FW_GLOBS)]
    t_start = time.monotonic()
    versions = _candidate_versions([spec for _n, spec, _p in jobs])
    for name, spec, paths in jobs:
        version = versions[spec]
        stamp = os.path.join(up, f".stamp-{name}")
        text = _stamp_text(spec, version, paths)
        if _stamp_ok(stamp, text):
            _log(f"{name}: up to date ({spec} {version})")
            continue
        t0 = time.monotonic()
        deb = _download(spec, debs)
        t1 = time.monotonic()
        if name == "linux":
            _extract_inner_tarball(deb, "./usr/src/linux-source-6.12.tar.xz",
                                   os.path.join(up, "linux"), "linux-source-6.12", paths)
        elif name == "nvidia-open":
            _extract_inner_tarball(deb, "./usr/src/nvidia-open-kernel.tar.xz",
                                   os.path.join(up, "nvidia-open"), "", paths)
        else:
            tmp = tempfile.mkdtemp(dir=up)
            try:
                _extract_deb_tar(deb, tmp, paths)
                src = os.path.join(tmp, "lib", "firmware")
                for root, _d, files in os.walk(src):
                    rel = os.path.relpath(root, src)
                    os.makedirs(os.path.join(up, "firmware", rel), exist_ok=True)
                    for f in files:
                        s = os.path.join(root, f)
                        d = os.path.join(up, "firmware", rel, f)
                        if os.path.islink(s):
                            if os.path.lexists(d):
                                os.remove(d)
                            os.symlink(os.readlink(s), d)
                        else:
                            os.replace(s, d)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        t2 = time.monotonic()
        with open(stamp, "w") as f:
            f.write(text)
        if not args.keep_debs:
            os.remove(deb)
        _log(f"{name}: {os.path.basename(deb)} downloaded in {t1 - t0:.1f}s, "
             f"extracted in {t2 - t1:.1f}s")
    if not args.keep_debs:
        shutil.rmtree(debs, ignore_errors=True)
    du = subprocess.run(["du", "-sh", up], capture_output=True, text=True).stdout.split()[0]
    _log(f"cache {up} ready ({du}, {time.monotonic() - t_start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit("use autogen/rawgpu-autogen fetch")
