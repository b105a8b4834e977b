// AMDGPU code object parser (see rawgpu/drivers/amd/code_object.h). ELF through LLVM's Object
// library, the metadata note through LLVM's msgpack Document, descriptor bit fields through
// LLVM's own AMDHSAKernelDescriptor.h masks (so the field table is upstream's, not ours).
#include "rawgpu/drivers/amd/code_object.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/AMDHSAKernelDescriptor.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "../quote.h"
#include "rawgpu/base/format.h"

namespace rawgpu::drivers::amd {
namespace {

using Elf = llvm::object::ELF64LEFile;
using namespace llvm::amdhsa;
using detail::quote;

constexpr size_t kDescriptorSize = 64;
// A code object's image is a few KiB to a few MiB; anything claiming more is corrupt input.
constexpr uint64_t kMaxImageSize = 256ull << 20;

Error parse_error(std::string msg) {
  return std::move(Error(Errc::kParse, std::move(msg))
                       .with_hint("the file is not a valid AMDGPU code object (truncated or "
                                  "corrupted?); re-create it with LLVM 19 + ld.lld-19 -shared"));
}

Error from_llvm(llvm::Error e, std::string_view what) {
  std::string msg = llvm::toString(std::move(e));
  return parse_error(strformat("%.*s: %s", int(what.size()), what.data(), msg.c_str()));
}

template <class T>
Result<T> take(llvm::Expected<T> e, std::string_view what) {
  if (!e) return from_llvm(e.takeError(), what);
  return std::move(*e);
}

// Name of the processor in e_flags, from LLVM's own table.
std::string mach_name(uint32_t mach) {
  switch (mach) {
#define RG_MACH(NAME, STR) \
  case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_##NAME: return STR;
    RG_MACH(GFX900, "gfx900")
    RG_MACH(GFX906, "gfx906")
    RG_MACH(GFX908, "gfx908")
    RG_MACH(GFX90A, "gfx90a")
    RG_MACH(GFX940, "gfx940")
    RG_MACH(GFX941, "gfx941")
    RG_MACH(GFX942, "gfx942")
    RG_MACH(GFX1010, "gfx1010")
    RG_MACH(GFX1030, "gfx1030")
    RG_MACH(GFX1100, "gfx1100")
    RG_MACH(GFX1101, "gfx1101")
    RG_MACH(GFX1102, "gfx1102")
    RG_MACH(GFX1103, "gfx1103")
    RG_MACH(GFX1150, "gfx1150")
    RG_MACH(GFX1151, "gfx1151")
    RG_MACH(GFX1200, "gfx1200")
    RG_MACH(GFX1201, "gfx1201")
#undef RG_MACH
    default: return {};
  }
}

// "gfx1100" -> 11, "gfx942" -> 9, "gfx90a" -> 9.
uint32_t major_of(std::string_view gfx) {
  if (gfx.size() < 6) return 0;
  std::string_view digits = gfx.substr(3, gfx.size() - 5);
  uint32_t v = 0;
  for (char c : digits) v = v * 10 + uint32_t(c - '0');
  return v;
}

template <class T>
T read_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// msgpack accessors that never convert or assert: a wrong type is a parse error.
using llvm::msgpack::DocNode;
using llvm::msgpack::Type;

const DocNode* map_get(DocNode& map, llvm::StringRef key) {
  if (!map.isMap()) return nullptr;
  auto& m = map.getMap();
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

Result<uint64_t> get_uint(DocNode& map, llvm::StringRef key, bool required, uint64_t dflt = 0) {
  const DocNode* n = map_get(map, key);
  if (!n) {
    if (!required) return dflt;
    return parse_error(strformat("metadata: missing key '%s'", key.str().c_str()));
  }
  if (n->getKind() == Type::UInt) return n->getUInt();
  if (n->getKind() == Type::Int && n->getInt() >= 0) return uint64_t(n->getInt());
  return parse_error(strformat("metadata: key '%s' is not an unsigned integer", key.str().c_str()));
}

Result<uint32_t> get_u32(DocNode& map, llvm::StringRef key, bool required) {
  const uint64_t v = RG_TRY(get_uint(map, key, required));
  if (v > UINT32_MAX)
    return parse_error(strformat("metadata: key '%s' = %llu does not fit 32 bits",
                                 key.str().c_str(), (unsigned long long)v));
  return uint32_t(v);
}

Result<std::string> get_string(DocNode& map, llvm::StringRef key, bool required) {
  const DocNode* n = map_get(map, key);
  if (!n) {
    if (!required) return std::string();
    return parse_error(strformat("metadata: missing key '%s'", key.str().c_str()));
  }
  if (!n->isString())
    return parse_error(strformat("metadata: key '%s' is not a string", key.str().c_str()));
  return n->getString().str();
}

Result<KernelMetadata> parse_kernel_metadata(DocNode& k) {
  if (!k.isMap()) return parse_error("metadata: amdhsa.kernels entry is not a map");
  KernelMetadata md;
  md.name = RG_TRY(get_string(k, ".name", true));
  md.symbol = RG_TRY(get_string(k, ".symbol", true));
  md.kernarg_segment_size = RG_TRY(get_u32(k, ".kernarg_segment_size", true));
  md.kernarg_segment_align = RG_TRY(get_u32(k, ".kernarg_segment_align", true));
  md.group_segment_fixed_size = RG_TRY(get_u32(k, ".group_segment_fixed_size", true));
  md.private_segment_fixed_size = RG_TRY(get_u32(k, ".private_segment_fixed_size", true));
  md.sgpr_count = RG_TRY(get_u32(k, ".sgpr_count", true));
  md.vgpr_count = RG_TRY(get_u32(k, ".vgpr_count", true));
  md.agpr_count = RG_TRY(get_u32(k, ".agpr_count", false));
  md.sgpr_spill_count = RG_TRY(get_u32(k, ".sgpr_spill_count", false));
  md.vgpr_spill_count = RG_TRY(get_u32(k, ".vgpr_spill_count", false));
  md.wavefront_size = RG_TRY(get_u32(k, ".wavefront_size", true));
  md.max_flat_workgroup_size = RG_TRY(get_u32(k, ".max_flat_workgroup_size", true));
  if (const DocNode* n = map_get(k, ".uses_dynamic_stack")) {
    if (n->getKind() != Type::Boolean)
      return parse_error("metadata: '.uses_dynamic_stack' is not a boolean");
    md.uses_dynamic_stack = n->getBool();
  }
  if (const DocNode* n = map_get(k, ".args")) {
    if (!n->isArray()) return parse_error("metadata: '.args' is not an array");
    auto& arr = const_cast<DocNode*>(n)->getArray();
    for (DocNode& a : arr) {
      if (!a.isMap()) return parse_error("metadata: kernel argument is not a map");
      KernelArg arg;
      arg.name = RG_TRY(get_string(a, ".name", false));
      arg.value_kind = RG_TRY(get_string(a, ".value_kind", true));
      arg.address_space = RG_TRY(get_string(a, ".address_space", false));
      arg.offset = RG_TRY(get_u32(a, ".offset", true));
      arg.size = RG_TRY(get_u32(a, ".size", true));
      if (uint64_t(arg.offset) + arg.size > md.kernarg_segment_size)
        return parse_error(
            strformat("metadata: kernel %s argument at offset %u size %u lies "
                      "outside its %u-byte kernarg segment",
                      quote(md.name).c_str(), arg.offset, arg.size, md.kernarg_segment_size));
      md.args.push_back(std::move(arg));
    }
  }
  return md;
}

struct NoteMetadata {
  std::string target;
  std::vector<uint32_t> version;
  std::vector<KernelMetadata> kernels;
};

// LLVM's msgpack Document assumes well-formed AMDGPU metadata: map keys of other types than
// strings (floats, binaries, containers) reach llvm_unreachable in its key comparison. Walk
// the blob with the streaming Reader first: one complete object, string map keys, bounded
// nesting.
Status validate_msgpack(llvm::StringRef blob, uint64_t& steps) {
  llvm::msgpack::Reader reader(blob);
  struct Frame {
    uint64_t left;
    bool map, key_next;
  };
  std::vector<Frame> stack;
  bool done = false;
  size_t objects = 0;
  for (;;) {
    llvm::msgpack::Object o;
    llvm::Expected<bool> got = reader.read(o);
    if (!got) return from_llvm(got.takeError(), "NT_AMDGPU_METADATA msgpack");
    if (!*got) break;
    if (done) return parse_error("metadata: trailing bytes after the msgpack document");
    ++steps;
    if (++objects > (1u << 20)) return parse_error("metadata: more than 2^20 msgpack objects");
    if (!stack.empty()) {
      Frame& f = stack.back();
      if (f.map && f.key_next) {
        if (o.Kind != Type::String) return parse_error("metadata: a map key is not a string");
        f.key_next = false;
      } else {
        --f.left;
        f.key_next = true;
      }
    }
    if (o.Kind == Type::Map || o.Kind == Type::Array) {
      if (stack.size() >= 64) return parse_error("metadata: msgpack nesting deeper than 64");
      if (o.Length > blob.size()) return parse_error("metadata: container longer than the note");
      stack.push_back({uint64_t(o.Length), o.Kind == Type::Map, true});
    }
    while (!stack.empty() && stack.back().left == 0 && stack.back().key_next) stack.pop_back();
    if (stack.empty()) done = true;
  }
  if (!done) return parse_error("metadata: msgpack document is truncated");
  return ok_status();
}

Result<NoteMetadata> parse_metadata_blob(llvm::StringRef blob, uint64_t& steps) {
  RG_TRY(validate_msgpack(blob, steps));
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false))
    return parse_error("NT_AMDGPU_METADATA note is not valid msgpack");
  DocNode& root = doc.getRoot();
  if (!root.isMap()) return parse_error("metadata: root is not a map");
  NoteMetadata out;
  out.target = RG_TRY(get_string(root, "amdhsa.target", true));
  if (const DocNode* v = map_get(root, "amdhsa.version")) {
    if (!v->isArray()) return parse_error("metadata: amdhsa.version is not an array");
    for (DocNode& e : const_cast<DocNode*>(v)->getArray()) {
      if (e.getKind() != Type::UInt || e.getUInt() > UINT32_MAX)
        return parse_error("metadata: amdhsa.version entry is not a small unsigned integer");
      out.version.push_back(uint32_t(e.getUInt()));
    }
  }
  const DocNode* ks = map_get(root, "amdhsa.kernels");
  if (!ks) return parse_error("metadata: missing amdhsa.kernels");
  if (!ks->isArray()) return parse_error("metadata: amdhsa.kernels is not an array");
  for (DocNode& k : const_cast<DocNode*>(ks)->getArray())
    out.kernels.push_back(
        RG_TRY_CTX(parse_kernel_metadata(k), "metadata kernel %zu", out.kernels.size()));
  return out;
}

// VGPR encoding granule (LLVM AMDGPUBaseInfo getVGPREncodingGranule): 8 with wave32 or on
// gfx90a+ (unified VGPR/AGPR file), else 4.
uint32_t vgpr_granule(uint32_t gfx_major, bool gfx90a_plus, bool wave32) {
  if (gfx_major >= 10) return wave32 ? 8 : 4;
  return gfx90a_plus ? 8 : 4;
}

Status cross_check(const CodeObject& co, const CodeObjectKernel& k, bool gfx90a_plus) {
  const KernelDescriptor& d = k.descriptor;
  const KernelMetadata& m = k.metadata;
  auto mismatch = [&](const char* what, uint64_t desc, uint64_t note) {
    return parse_error(
        strformat("kernel %s: %s is %llu in the descriptor but %llu in the "
                  "metadata note",
                  quote(k.name).c_str(), what, (unsigned long long)desc, (unsigned long long)note));
  };
  if (d.kernarg_size != m.kernarg_segment_size)
    return mismatch("kernarg size", d.kernarg_size, m.kernarg_segment_size);
  if (d.group_segment_fixed_size != m.group_segment_fixed_size)
    return mismatch("group segment size", d.group_segment_fixed_size, m.group_segment_fixed_size);
  if (d.private_segment_fixed_size != m.private_segment_fixed_size)
    return mismatch("private segment size", d.private_segment_fixed_size,
                    m.private_segment_fixed_size);
  const uint32_t wave = (co.gfx_major >= 10 && d.properties.wavefront_size32) ? 32 : 64;
  if (wave != m.wavefront_size) return mismatch("wavefront size", wave, m.wavefront_size);
  // The descriptor's VGPR field is the granule count minus one of the allocation; the note
  // gives the exact count. The allocation must cover it.
  const uint32_t g = vgpr_granule(co.gfx_major, gfx90a_plus, wave == 32);
  uint64_t vgprs = m.vgpr_count;
  if (gfx90a_plus && co.gfx_major == 9 && m.agpr_count > 0)
    vgprs = uint64_t(d.rsrc3.accum_offset + 1) * 4 + m.agpr_count;
  const uint64_t alloc = uint64_t(d.rsrc1.granulated_workitem_vgpr_count + 1) * g;
  if (alloc < vgprs || alloc >= vgprs + g + (vgprs == 0 ? g : 0))
    return parse_error(
        strformat("kernel %s: descriptor allocates %llu VGPRs (granule %u) but "
                  "the metadata note says %llu",
                  quote(k.name).c_str(), (unsigned long long)alloc, g, (unsigned long long)vgprs));
  if (co.gfx_major < 10) {
    const uint64_t salloc = uint64_t(d.rsrc1.granulated_wavefront_sgpr_count + 1) * 8;
    if (salloc < m.sgpr_count)
      return parse_error(
          strformat("kernel %s: descriptor allocates %llu SGPRs but the note "
                    "says %u",
                    quote(k.name).c_str(), (unsigned long long)salloc, m.sgpr_count));
  }
  const uint32_t needed = d.properties.user_sgprs() + (d.kernarg_preload & 0x7f);
  if (d.rsrc2.user_sgpr_count < needed)
    return parse_error(
        strformat("kernel %s: USER_SGPR_COUNT %u is smaller than the %u user "
                  "SGPRs its code properties enable",
                  quote(k.name).c_str(), d.rsrc2.user_sgpr_count, needed));
  if (d.properties.uses_dynamic_stack != m.uses_dynamic_stack)
    return mismatch("uses_dynamic_stack", d.properties.uses_dynamic_stack, m.uses_dynamic_stack);
  return ok_status();
}

// Writes the step count into the caller's stats on every return path.
struct StepCounter {
  CodeObjectParseStats* out;
  uint64_t n = 0;
  ~StepCounter() {
    if (out != nullptr) out->steps = n;
  }
};

}  // namespace

uint32_t CodeProperties::user_sgprs() const {
  return 4 * private_segment_buffer + 2 * dispatch_ptr + 2 * queue_ptr + 2 * kernarg_segment_ptr +
         2 * dispatch_id + 2 * flat_scratch_init + 1 * private_segment_size;
}

#define RG_GET(SRC, MSK) uint32_t(((SRC) & uint32_t(MSK)) >> MSK##_SHIFT)

PgmRsrc1 decode_rsrc1(uint32_t v, uint32_t gfx_major) {
  PgmRsrc1 r;
  r.granulated_workitem_vgpr_count = RG_GET(v, COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT);
  r.granulated_wavefront_sgpr_count = RG_GET(v, COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT);
  r.priority = RG_GET(v, COMPUTE_PGM_RSRC1_PRIORITY);
  r.float_round_mode_32 = RG_GET(v, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32);
  r.float_round_mode_16_64 = RG_GET(v, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64);
  r.float_denorm_mode_32 = RG_GET(v, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32);
  r.float_denorm_mode_16_64 = RG_GET(v, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64);
  r.priv = RG_GET(v, COMPUTE_PGM_RSRC1_PRIV);
  if (gfx_major >= 12) {
    r.wg_rr_en = RG_GET(v, COMPUTE_PGM_RSRC1_GFX12_PLUS_ENABLE_WG_RR_EN);
    r.disable_perf = RG_GET(v, COMPUTE_PGM_RSRC1_GFX12_PLUS_DISABLE_PERF);
  } else {
    r.dx10_clamp = RG_GET(v, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP);
    r.ieee_mode = RG_GET(v, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE);
  }
  r.debug_mode = RG_GET(v, COMPUTE_PGM_RSRC1_DEBUG_MODE);
  r.bulky = RG_GET(v, COMPUTE_PGM_RSRC1_BULKY);
  r.cdbg_user = RG_GET(v, COMPUTE_PGM_RSRC1_CDBG_USER);
  if (gfx_major >= 9) r.fp16_ovfl = RG_GET(v, COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL);
  if (gfx_major >= 10) {
    r.wgp_mode = RG_GET(v, COMPUTE_PGM_RSRC1_GFX10_PLUS_WGP_MODE);
    r.mem_ordered = RG_GET(v, COMPUTE_PGM_RSRC1_GFX10_PLUS_MEM_ORDERED);
    r.fwd_progress = RG_GET(v, COMPUTE_PGM_RSRC1_GFX10_PLUS_FWD_PROGRESS);
  }
  return r;
}

PgmRsrc2 decode_rsrc2(uint32_t v, uint32_t gfx_major) {
  PgmRsrc2 r;
  r.enable_private_segment = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT);
  r.user_sgpr_count = RG_GET(v, COMPUTE_PGM_RSRC2_USER_SGPR_COUNT);
  if (gfx_major < 12)
    r.enable_trap_handler = RG_GET(v, COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER);
  r.enable_sgpr_workgroup_id_x = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X);
  r.enable_sgpr_workgroup_id_y = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y);
  r.enable_sgpr_workgroup_id_z = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z);
  r.enable_sgpr_workgroup_info = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO);
  r.enable_vgpr_workitem_id = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
  r.enable_exception_address_watch = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH);
  r.enable_exception_memory = RG_GET(v, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY);
  r.granulated_lds_size = RG_GET(v, COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE);
  r.exception_mask = (v >> 24) & 0x7f;
  return r;
}

PgmRsrc3 decode_rsrc3(uint32_t v, uint32_t gfx_major, bool is_gfx90a_plus) {
  PgmRsrc3 r;
  if (gfx_major == 9 && is_gfx90a_plus) {
    r.accum_offset = RG_GET(v, COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET);
    r.tg_split = RG_GET(v, COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT);
  } else if (gfx_major >= 10 && gfx_major <= 11) {
    r.shared_vgpr_count = RG_GET(v, COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT);
    if (gfx_major == 11) {
      r.inst_pref_size = RG_GET(v, COMPUTE_PGM_RSRC3_GFX11_INST_PREF_SIZE);
      r.trap_on_start = RG_GET(v, COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_START);
      r.trap_on_end = RG_GET(v, COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_END);
      r.image_op = RG_GET(v, COMPUTE_PGM_RSRC3_GFX11_PLUS_IMAGE_OP);
    }
  } else if (gfx_major >= 12) {
    r.inst_pref_size = RG_GET(v, COMPUTE_PGM_RSRC3_GFX12_PLUS_INST_PREF_SIZE);
    r.glg_en = RG_GET(v, COMPUTE_PGM_RSRC3_GFX12_PLUS_GLG_EN);
    r.image_op = RG_GET(v, COMPUTE_PGM_RSRC3_GFX11_PLUS_IMAGE_OP);
  }
  return r;
}

CodeProperties decode_code_properties(uint16_t v) {
  CodeProperties p;
  p.private_segment_buffer = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER);
  p.dispatch_ptr = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR);
  p.queue_ptr = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR);
  p.kernarg_segment_ptr = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR);
  p.dispatch_id = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID);
  p.flat_scratch_init = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT);
  p.private_segment_size = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE);
  p.wavefront_size32 = RG_GET(v, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32);
  p.uses_dynamic_stack = RG_GET(v, KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK);
  return p;
}

#undef RG_GET

const CodeObjectKernel* CodeObject::find(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Result<CodeObject> parse_code_object(std::span<const uint8_t> bytes, CodeObjectParseStats* stats) {
  StepCounter steps{stats};
  if (bytes.size() < sizeof(llvm::ELF::Elf64_Ehdr))
    return parse_error(
        strformat("code object is %zu bytes, shorter than an ELF64 header", bytes.size()));
  if (std::memcmp(bytes.data(), llvm::ELF::ElfMagic, 4) != 0)
    return parse_error("code object does not start with the ELF magic");
  const llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Elf elf = RG_TRY(take(Elf::create(data), "ELF header"));
  const auto& eh = elf.getHeader();
  if (eh.e_ident[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      eh.e_ident[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return parse_error("code object is not ELF64 little-endian");
  if (eh.e_machine != llvm::ELF::EM_AMDGPU)
    return make_error(Errc::kUnsupported, "ELF machine is %u, not EM_AMDGPU (%u)",
                      unsigned(eh.e_machine), unsigned(llvm::ELF::EM_AMDGPU));
  if (eh.e_ident[llvm::ELF::EI_OSABI] != llvm::ELF::ELFOSABI_AMDGPU_HSA)
    return make_error(Errc::kUnsupported, "ELF OS/ABI is %u, not AMDGPU HSA (%u)",
                      unsigned(eh.e_ident[llvm::ELF::EI_OSABI]),
                      unsigned(llvm::ELF::ELFOSABI_AMDGPU_HSA));
  CodeObject co;
  co.abi_version = eh.e_ident[llvm::ELF::EI_ABIVERSION];
  if (co.abi_version != llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5 &&
      co.abi_version != llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    return std::move(make_error(Errc::kUnsupported,
                                "code object ABI version %u is not v5 (3) or v6 (4)",
                                unsigned(co.abi_version))
                         .with_hint("compile with LLVM 19 defaults (code object v5)"));
  co.code_object_version = co.abi_version + 2;
  if (eh.e_type == llvm::ELF::ET_REL)
    return std::move(
        make_error(Errc::kUnsupported, "relocatable code object (ET_REL) given to the loader")
            .with_hint("link it first: ld.lld-19 -shared in.o -o out.co"));
  if (eh.e_type != llvm::ELF::ET_DYN)
    return parse_error(strformat("ELF type %u is not ET_DYN", unsigned(eh.e_type)));
  co.e_flags = eh.e_flags;
  co.target = mach_name(eh.e_flags & llvm::ELF::EF_AMDGPU_MACH);
  if (co.target.empty())
    return make_error(Errc::kUnsupported, "unknown AMDGPU processor 0x%x in e_flags",
                      unsigned(eh.e_flags & llvm::ELF::EF_AMDGPU_MACH));
  co.gfx_major = major_of(co.target);
  const bool gfx90a_plus =
      co.gfx_major == 9 && (co.target == "gfx90a" || co.target.rfind("gfx94", 0) == 0);

  // Segments and the image.
  auto phdrs = RG_TRY(take(elf.program_headers(), "program headers"));
  uint64_t image_end = 0;
  co.image_align = 1;
  for (const auto& ph : phdrs) {
    ++steps.n;
    if (ph.p_type != llvm::ELF::PT_LOAD) continue;
    LoadSegment s;
    s.vaddr = ph.p_vaddr;
    s.file_offset = ph.p_offset;
    s.file_size = ph.p_filesz;
    s.mem_size = ph.p_memsz;
    s.align = ph.p_align;
    s.readable = ph.p_flags & llvm::ELF::PF_R;
    s.writable = ph.p_flags & llvm::ELF::PF_W;
    s.executable = ph.p_flags & llvm::ELF::PF_X;
    if (s.file_size > s.mem_size)
      return parse_error(
          strformat("PT_LOAD at 0x%llx: file size 0x%llx exceeds memory size "
                    "0x%llx",
                    (unsigned long long)s.vaddr, (unsigned long long)s.file_size,
                    (unsigned long long)s.mem_size));
    if (s.file_offset > bytes.size() || s.file_size > bytes.size() - s.file_offset)
      return parse_error(
          strformat("PT_LOAD at 0x%llx: file range [0x%llx, +0x%llx) lies "
                    "outside the %zu-byte file",
                    (unsigned long long)s.vaddr, (unsigned long long)s.file_offset,
                    (unsigned long long)s.file_size, bytes.size()));
    if (s.vaddr > kMaxImageSize || s.mem_size > kMaxImageSize - s.vaddr)
      return make_error(Errc::kOutOfRange,
                        "PT_LOAD at 0x%llx size 0x%llx exceeds the %llu MiB image limit",
                        (unsigned long long)s.vaddr, (unsigned long long)s.mem_size,
                        (unsigned long long)(kMaxImageSize >> 20));
    if (s.align > 1) {
      if ((s.align & (s.align - 1)) != 0)
        return parse_error(strformat("PT_LOAD alignment 0x%llx is not a power of two",
                                     (unsigned long long)s.align));
      if (s.align <= kMaxImageSize) co.image_align = std::max(co.image_align, s.align);
    }
    image_end = std::max(image_end, s.vaddr + s.mem_size);
    co.segments.push_back(s);
  }
  if (co.segments.empty()) return parse_error("code object has no PT_LOAD segment");
  // Overlaps, in one sorted pass: a segment overlaps an earlier-starting one iff it starts before
  // the furthest end seen so far (empty segments occupy nothing).
  std::vector<size_t> by_vaddr(co.segments.size());
  std::iota(by_vaddr.begin(), by_vaddr.end(), size_t(0));
  std::sort(by_vaddr.begin(), by_vaddr.end(),
            [&](size_t a, size_t b) { return co.segments[a].vaddr < co.segments[b].vaddr; });
  steps.n += co.segments.size();
  const LoadSegment* furthest = nullptr;
  for (size_t i : by_vaddr) {
    const LoadSegment& s = co.segments[i];
    if (s.mem_size == 0) continue;
    if (furthest != nullptr && s.vaddr < furthest->vaddr + furthest->mem_size)
      return parse_error(strformat("PT_LOAD segments at 0x%llx and 0x%llx overlap",
                                   (unsigned long long)furthest->vaddr,
                                   (unsigned long long)s.vaddr));
    if (furthest == nullptr || s.vaddr + s.mem_size > furthest->vaddr + furthest->mem_size)
      furthest = &s;
  }
  // The executable segments' file-backed ranges, sorted and disjoint: entry points are looked
  // up by binary search.
  std::vector<const LoadSegment*> exec;
  for (size_t i : by_vaddr)
    if (co.segments[i].executable && co.segments[i].file_size != 0) exec.push_back(&co.segments[i]);
  auto in_exec = [&](uint64_t va) {
    auto it = std::upper_bound(exec.begin(), exec.end(), va,
                               [](uint64_t v, const LoadSegment* s) { return v < s->vaddr; });
    if (it == exec.begin()) return false;
    const LoadSegment* s = *(it - 1);
    return va - s->vaddr < s->file_size;
  };
  co.image.assign(image_end, 0);
  for (const auto& s : co.segments)  // (an all-empty image has no data() to copy into)
    if (s.file_size != 0)
      std::memcpy(co.image.data() + s.vaddr, bytes.data() + s.file_offset, s.file_size);

  // Dynamic relocations would have to be applied at load time; lld emits none for code
  // objects without global data pointers. Reject the others until a kernel needs them.
  auto sections = RG_TRY(take(elf.sections(), "section headers"));
  for (const auto& sh : sections) {
    ++steps.n;
    if ((sh.sh_type == llvm::ELF::SHT_RELA || sh.sh_type == llvm::ELF::SHT_REL) &&
        sh.sh_size != 0 && (sh.sh_flags & llvm::ELF::SHF_ALLOC))
      return make_error(Errc::kUnsupported,
                        "code object has dynamic relocations (section of %llu bytes); rawgpu "
                        "loads only position-independent objects without them",
                        (unsigned long long)sh.sh_size);
  }

  // Metadata note (PT_NOTE segments, or SHT_NOTE sections when there are no notes segments).
  // Disjoint note segments hold at most the file; overlapping ones would be walked again and
  // again (quadratic in the file size): refused before any is walked.
  uint64_t note_bytes = 0;
  for (const auto& ph : phdrs) {
    if (ph.p_type != llvm::ELF::PT_NOTE) continue;
    if (ph.p_offset > bytes.size() || ph.p_filesz > bytes.size() - ph.p_offset)
      continue;  // reported below
    note_bytes += ph.p_filesz;
    if (note_bytes > bytes.size())
      return parse_error(strformat(
          "PT_NOTE segments hold more bytes than the %zu-byte file (they overlap)", bytes.size()));
  }
  std::optional<NoteMetadata> note;
  auto take_note = [&](const auto& n) -> Status {
    if (n.getType() != llvm::ELF::NT_AMDGPU_METADATA || n.getName() != "AMDGPU") return {};
    if (note) return parse_error("code object has two NT_AMDGPU_METADATA notes");
    llvm::ArrayRef<uint8_t> desc = n.getDesc(4);
    note = RG_TRY(parse_metadata_blob(
        llvm::StringRef(reinterpret_cast<const char*>(desc.data()), desc.size()), steps.n));
    return {};
  };
  for (const auto& ph : phdrs) {
    if (ph.p_type != llvm::ELF::PT_NOTE) continue;
    // LLVM 19's notes() checks p_offset + p_filesz against the file size with a sum that can
    // wrap; check it here without overflow.
    if (ph.p_offset > bytes.size() || ph.p_filesz > bytes.size() - ph.p_offset)
      return parse_error(strformat(
          "PT_NOTE at offset 0x%llx (0x%llx bytes) lies outside the "
          "%zu-byte file",
          (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, bytes.size()));
    llvm::Error err = llvm::Error::success();
    for (const auto& n : elf.notes(ph, err)) {
      ++steps.n;
      Status st = take_note(n);
      if (!st.ok()) {
        llvm::consumeError(std::move(err));
        return std::move(st).take_error();
      }
    }
    if (err) return from_llvm(std::move(err), "PT_NOTE");
  }
  if (!note) return parse_error("code object has no NT_AMDGPU_METADATA note");
  co.target_id = note->target;
  co.metadata_version = note->version;
  const std::string want_prefix = "amdgcn-amd-amdhsa--" + co.target;
  if (co.target_id.rfind(want_prefix, 0) != 0)
    return parse_error(strformat("metadata target %s does not match e_flags processor '%s'",
                                 quote(co.target_id).c_str(), co.target.c_str()));

  // Symbols: kernels are `<name>.kd` objects; their code is the `<name>` function. Names point
  // into the input (the string tables).
  struct Sym {
    uint64_t value, size;
    uint8_t type;
  };
  std::unordered_map<std::string_view, Sym> syms;
  std::vector<std::string_view> kd_order;
  bool have_symtab = false, have_dynsym = false;
  for (const auto& sh : sections) {
    if (sh.sh_type != llvm::ELF::SHT_SYMTAB && sh.sh_type != llvm::ELF::SHT_DYNSYM) continue;
    // ELF allows one of each (and many copies of one table would be walked again and again).
    bool& seen = sh.sh_type == llvm::ELF::SHT_SYMTAB ? have_symtab : have_dynsym;
    if (seen)
      return parse_error(
          strformat("code object has two %s sections",
                    sh.sh_type == llvm::ELF::SHT_SYMTAB ? "SHT_SYMTAB" : "SHT_DYNSYM"));
    seen = true;
    auto list = RG_TRY(take(elf.symbols(&sh), "symbol table"));
    llvm::StringRef strtab = RG_TRY(take(elf.getStringTableForSymtab(sh), "symbol string table"));
    syms.reserve(syms.size() + list.size());
    for (const auto& s : list) {
      ++steps.n;
      llvm::StringRef name_ref = RG_TRY(take(s.getName(strtab), "symbol name"));
      const std::string_view name(name_ref.data(), name_ref.size());
      if (name.empty() || s.st_shndx == llvm::ELF::SHN_UNDEF) continue;
      auto [it, inserted] = syms.emplace(name, Sym{s.st_value, s.st_size, uint8_t(s.getType())});
      if (!inserted) {
        if (it->second.value != s.st_value)
          return parse_error(strformat("symbol %s has two different values", quote(name).c_str()));
        continue;
      }
      if (name.ends_with(".kd")) kd_order.push_back(name);
    }
  }
  if (kd_order.empty()) return parse_error("code object defines no kernel (no '<name>.kd' symbol)");

  // The metadata entries by their descriptor symbol.
  std::unordered_map<std::string_view, const KernelMetadata*> md_by_symbol;
  md_by_symbol.reserve(note->kernels.size());
  for (const KernelMetadata& m : note->kernels) {
    ++steps.n;
    if (!md_by_symbol.emplace(m.symbol, &m).second)
      return parse_error(
          strformat("metadata note lists kernel symbol %s twice", quote(m.symbol).c_str()));
  }

  co.kernels.reserve(kd_order.size());
  for (const std::string_view kd_name : kd_order) {
    ++steps.n;
    const Sym& kd = syms.at(kd_name);
    CodeObjectKernel k;
    k.name = std::string(kd_name.substr(0, kd_name.size() - 3));
    k.descriptor_va = kd.value;
    if (kd.size != kDescriptorSize)
      return parse_error(strformat("kernel descriptor %s is %llu bytes, expected 64",
                                   quote(kd_name).c_str(), (unsigned long long)kd.size));
    if (kd.value % 64 != 0)
      return parse_error(strformat("kernel descriptor %s at 0x%llx is not 64-byte aligned",
                                   quote(kd_name).c_str(), (unsigned long long)kd.value));
    if (kd.value > co.image.size() || co.image.size() - kd.value < kDescriptorSize)
      return parse_error(
          strformat("kernel descriptor %s at 0x%llx lies outside the loaded "
                    "image (0x%zx bytes)",
                    quote(kd_name).c_str(), (unsigned long long)kd.value, co.image.size()));
    const uint8_t* p = co.image.data() + kd.value;
    KernelDescriptor& d = k.descriptor;
    d.group_segment_fixed_size = read_le<uint32_t>(p + 0);
    d.private_segment_fixed_size = read_le<uint32_t>(p + 4);
    d.kernarg_size = read_le<uint32_t>(p + KERNARG_SIZE_OFFSET);
    d.kernel_code_entry_byte_offset = read_le<int64_t>(p + 16);
    d.compute_pgm_rsrc3 = read_le<uint32_t>(p + COMPUTE_PGM_RSRC3_OFFSET);
    d.compute_pgm_rsrc1_raw = read_le<uint32_t>(p + COMPUTE_PGM_RSRC1_OFFSET);
    d.compute_pgm_rsrc2 = read_le<uint32_t>(p + COMPUTE_PGM_RSRC2_OFFSET);
    d.kernel_code_properties = read_le<uint16_t>(p + KERNEL_CODE_PROPERTIES_OFFSET);
    d.kernarg_preload = read_le<uint16_t>(p + KERNARG_PRELOAD_OFFSET);
    d.compute_pgm_rsrc1 = d.compute_pgm_rsrc1_raw;
    if (co.gfx_major >= 10) {
      const uint32_t reserved = uint32_t(COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT);
      if (d.compute_pgm_rsrc1 & reserved) {
        d.compute_pgm_rsrc1 &= ~reserved;
        d.rsrc1_reserved_bits_cleared = true;
      }
    }
    d.rsrc1 = decode_rsrc1(d.compute_pgm_rsrc1, co.gfx_major);
    d.rsrc1.granulated_wavefront_sgpr_count =
        co.gfx_major >= 10 ? 0 : d.rsrc1.granulated_wavefront_sgpr_count;
    d.rsrc2 = decode_rsrc2(d.compute_pgm_rsrc2, co.gfx_major);
    d.rsrc3 = decode_rsrc3(d.compute_pgm_rsrc3, co.gfx_major, gfx90a_plus);
    d.properties = decode_code_properties(d.kernel_code_properties);

    // The entry must land on code inside an executable segment, 256-byte aligned.
    const int64_t entry = d.kernel_code_entry_byte_offset;
    const __int128 code = __int128(kd.value) + entry;
    if (code < 0 || code >= __int128(co.image.size()))
      return parse_error(strformat("kernel %s: entry offset %lld points outside the image",
                                   quote(k.name).c_str(), (long long)entry));
    k.code_va = uint64_t(code);
    if (k.code_va % 256 != 0)
      return parse_error(strformat("kernel %s: code address 0x%llx is not 256-byte aligned",
                                   quote(k.name).c_str(), (unsigned long long)k.code_va));
    if (!in_exec(k.code_va))
      return parse_error(
          strformat("kernel %s: code address 0x%llx is not in an executable "
                    "segment",
                    quote(k.name).c_str(), (unsigned long long)k.code_va));
    if (auto it = syms.find(k.name); it != syms.end()) {
      if (it->second.value != k.code_va)
        return parse_error(
            strformat("kernel %s: symbol at 0x%llx but the descriptor's entry "
                      "is 0x%llx",
                      quote(k.name).c_str(), (unsigned long long)it->second.value,
                      (unsigned long long)k.code_va));
      k.code_size = it->second.size;
    }

    const auto md = md_by_symbol.find(kd_name);
    if (md == md_by_symbol.end())
      return parse_error(
          strformat("kernel %s has no entry in the metadata note", quote(k.name).c_str()));
    k.metadata = *md->second;
    RG_TRY(cross_check(co, k, gfx90a_plus));
    co.kernels.push_back(std::move(k));
  }
  if (co.kernels.size() != note->kernels.size())
    return parse_error(strformat("metadata note lists %zu kernels but the symbol table has %zu",
                                 note->kernels.size(), co.kernels.size()));
  return co;
}

std::string describe(const CodeObjectKernel& k) {
  const auto& d = k.descriptor;
  const auto& m = k.metadata;
  return strformat(
      "%s: code 0x%llx (%llu B), descriptor 0x%llx; kernarg %u B, LDS %u B, scratch %u B; "
      "wave%u, %u SGPRs, %u VGPRs%s; rsrc1 0x%08x%s rsrc2 0x%08x rsrc3 0x%08x; user SGPRs %u "
      "(dispatch_ptr %d, kernarg_ptr %d), workgroup id x/y/z %d/%d/%d, workitem id dims %u",
      k.name.c_str(), (unsigned long long)k.code_va, (unsigned long long)k.code_size,
      (unsigned long long)k.descriptor_va, d.kernarg_size, d.group_segment_fixed_size,
      d.private_segment_fixed_size, m.wavefront_size, m.sgpr_count, m.vgpr_count,
      m.agpr_count ? strformat(" + %u AGPRs", m.agpr_count).c_str() : "", d.compute_pgm_rsrc1,
      d.rsrc1_reserved_bits_cleared ? strformat(" (raw 0x%08x)", d.compute_pgm_rsrc1_raw).c_str()
                                    : "",
      d.compute_pgm_rsrc2, d.compute_pgm_rsrc3, d.rsrc2.user_sgpr_count, d.properties.dispatch_ptr,
      d.properties.kernarg_segment_ptr, d.rsrc2.enable_sgpr_workgroup_id_x,
      d.rsrc2.enable_sgpr_workgroup_id_y, d.rsrc2.enable_sgpr_workgroup_id_z,
      d.rsrc2.enable_vgpr_workitem_id + 1);
}

}  // namespace rawgpu::drivers::amd
