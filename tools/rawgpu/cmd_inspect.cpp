// `rawgpu inspect FILE`: decodes an AMDGPU code object or an NVIDIA cubin a user gives, through
// the loaders' own parsers (drivers/amd/code_object.h, drivers/nv/cubin.h): the kernels, their
// registers, LDS/shared memory, scratch/stack, kernarg layout, wave size / thread limits and the
// descriptor or .nv.info fields, as text or JSON.
#include <llvm/Support/JSON.h>

#include <cstring>
#include <optional>
#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/file.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"

namespace rawgpu::tools {
namespace {

namespace amd = drivers::amd;
namespace nv = drivers::nv;

constexpr uint16_t kEmCuda = 190, kEmAmdgpu = 224;

}  // namespace

Result<std::vector<uint8_t>> read_binary_file(const std::string& path, uint64_t max_bytes) {
  ReadLimits limits;
  limits.max_bytes = max_bytes;
  limits.too_big_hint =
      "code objects and cubins are kilobytes to a few megabytes: is this the right file?";
  std::vector<uint8_t> bytes;
  RG_TRY(read_file_chunks(path, limits, [&](std::string_view chunk) -> Status {
    bytes.insert(bytes.end(), chunk.begin(), chunk.end());
    return ok_status();
  }));
  return bytes;
}

namespace {

// --- text ---------------------------------------------------------------------------------------

std::string segment_flags(const amd::LoadSegment& s) {
  return std::string(s.readable ? "r" : "-") + (s.writable ? "w" : "-") +
         (s.executable ? "x" : "-");
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

void amd_kernel_text(std::ostream& os, const amd::CodeObjectKernel& k) {
  const amd::KernelDescriptor& d = k.descriptor;
  const amd::KernelMetadata& m = k.metadata;
  os << "\nkernel " << k.name << "\n";
  os << strformat("  code             0x%llx, %llu bytes; descriptor %s at 0x%llx\n",
                  (unsigned long long)k.code_va, (unsigned long long)k.code_size, m.symbol.c_str(),
                  (unsigned long long)k.descriptor_va);
  os << strformat("  wavefront        %u lanes; max flat workgroup size %u\n", m.wavefront_size,
                  m.max_flat_workgroup_size);
  os << strformat("  registers        %u SGPRs, %u VGPRs", m.sgpr_count, m.vgpr_count);
  if (m.agpr_count != 0) os << strformat(", %u AGPRs", m.agpr_count);
  os << strformat(" (spilled: %u SGPRs, %u VGPRs)\n", m.sgpr_spill_count, m.vgpr_spill_count);
  os << strformat("  LDS              %u bytes (static)\n", d.group_segment_fixed_size);
  os << strformat("  scratch          %u bytes per work-item; dynamic stack: %s\n",
                  d.private_segment_fixed_size, yes_no(m.uses_dynamic_stack).c_str());
  os << strformat("  kernarg segment  %u bytes, align %u; %zu argument(s)\n", d.kernarg_size,
                  m.kernarg_segment_align, m.args.size());
  if (!m.args.empty()) {
    os << "      offset    size  kind                            address space  name\n";
    for (const amd::KernelArg& a : m.args)
      os << strformat("    %8u  %6u  %-30s  %-13s  %s\n", a.offset, a.size, a.value_kind.c_str(),
                      a.address_space.empty() ? "-" : a.address_space.c_str(),
                      a.name.empty() ? "-" : a.name.c_str());
  }
  os << strformat("  rsrc1            0x%08x", d.compute_pgm_rsrc1);
  if (d.rsrc1_reserved_bits_cleared)
    os << strformat(" (stored 0x%08x: reserved SGPR-count bits cleared)", d.compute_pgm_rsrc1_raw);
  os << strformat(
      ": granulated VGPRs %u, granulated SGPRs %u, float round %u/%u, denorm %u/%u, ieee %s, "
      "dx10 clamp %s, wgp mode %s, mem ordered %s\n",
      d.rsrc1.granulated_workitem_vgpr_count, d.rsrc1.granulated_wavefront_sgpr_count,
      d.rsrc1.float_round_mode_32, d.rsrc1.float_round_mode_16_64, d.rsrc1.float_denorm_mode_32,
      d.rsrc1.float_denorm_mode_16_64, yes_no(d.rsrc1.ieee_mode).c_str(),
      yes_no(d.rsrc1.dx10_clamp).c_str(), yes_no(d.rsrc1.wgp_mode).c_str(),
      yes_no(d.rsrc1.mem_ordered).c_str());
  os << strformat(
      "  rsrc2            0x%08x: user SGPRs %u, scratch %s, workgroup id x/y/z %d/%d/%d, "
      "workgroup info %s, workitem id dims %u\n",
      d.compute_pgm_rsrc2, d.rsrc2.user_sgpr_count, yes_no(d.rsrc2.enable_private_segment).c_str(),
      d.rsrc2.enable_sgpr_workgroup_id_x, d.rsrc2.enable_sgpr_workgroup_id_y,
      d.rsrc2.enable_sgpr_workgroup_id_z, yes_no(d.rsrc2.enable_sgpr_workgroup_info).c_str(),
      d.rsrc2.enable_vgpr_workitem_id + 1);
  os << strformat("  rsrc3            0x%08x\n", d.compute_pgm_rsrc3);
  const amd::CodeProperties& p = d.properties;
  std::string props;
  auto prop = [&](bool on, const char* name) {
    if (on) props += (props.empty() ? "" : ", ") + std::string(name);
  };
  prop(p.private_segment_buffer, "private_segment_buffer");
  prop(p.dispatch_ptr, "dispatch_ptr");
  prop(p.queue_ptr, "queue_ptr");
  prop(p.kernarg_segment_ptr, "kernarg_segment_ptr");
  prop(p.dispatch_id, "dispatch_id");
  prop(p.flat_scratch_init, "flat_scratch_init");
  prop(p.private_segment_size, "private_segment_size");
  prop(p.wavefront_size32, "wavefront_size32");
  prop(p.uses_dynamic_stack, "uses_dynamic_stack");
  os << strformat("  code properties  0x%04x: %s; kernarg preload %u dwords\n",
                  d.kernel_code_properties, props.empty() ? "none" : props.c_str(),
                  d.kernarg_preload & 0x7fu);
}

std::string code_object_text(const std::string& file, const amd::CodeObject& co,
                             const std::vector<const amd::CodeObjectKernel*>& kernels) {
  std::ostringstream os;
  std::string version;
  for (uint32_t v : co.metadata_version)
    version += (version.empty() ? "" : ".") + std::to_string(v);
  os << strformat("%s: AMDGPU code object v%u, target %s (%s), e_flags 0x%x, metadata version %s\n",
                  file.c_str(), co.code_object_version, co.target.c_str(), co.target_id.c_str(),
                  co.e_flags, version.empty() ? "-" : version.c_str());
  os << strformat("  image %llu bytes, align %llu; %zu PT_LOAD segment(s):",
                  (unsigned long long)co.image.size(), (unsigned long long)co.image_align,
                  co.segments.size());
  size_t shown = 0;
  for (const amd::LoadSegment& s : co.segments) {
    if (shown++ == 8) {
      os << strformat(" ... (%zu more)", co.segments.size() - 8);
      break;
    }
    os << strformat(" 0x%llx+0x%llx %s", (unsigned long long)s.vaddr,
                    (unsigned long long)s.mem_size, segment_flags(s).c_str());
  }
  os << "\n  " << co.kernels.size() << " kernel(s)\n";
  for (const amd::CodeObjectKernel* k : kernels) amd_kernel_text(os, *k);
  return os.str();
}

void nv_kernel_text(std::ostream& os, const nv::CubinKernel& k) {
  os << "\nkernel " << k.name << "\n";
  os << strformat("  code            %llu bytes at file offset 0x%llx, align %u\n",
                  (unsigned long long)k.code_size, (unsigned long long)k.code_offset, k.code_align);
  os << strformat("  registers       %u per thread\n", k.registers);
  os << strformat("  shared memory   %u bytes (static)\n", k.shared_bytes);
  os << strformat("  stack           %u bytes (frame %u bytes)\n", k.stack_bytes, k.frame_bytes);
  if (k.max_threads[0] == 0 && k.max_threads[1] == 0 && k.max_threads[2] == 0)
    os << "  max threads     not set (.maxntid absent)\n";
  else
    os << strformat("  max threads     %u x %u x %u (.maxntid)\n", k.max_threads[0],
                    k.max_threads[1], k.max_threads[2]);
  os << strformat("  parameters      %u bytes at c[0x0][0x%x]; %zu parameter(s)\n", k.param_size,
                  k.param_offset, k.params.size());
  if (!k.params.empty()) {
    os << "     ordinal    offset    size\n";
    for (const nv::CubinParam& p : k.params)
      os << strformat("    %8u  %8u  %6u\n", p.ordinal, p.offset, p.size);
  }
  os << "  constant banks ";
  if (k.banks.empty()) os << " none";
  for (const nv::ConstantBank& b : k.banks)
    os << strformat(" c[%u] %llu bytes (%s)", b.bank, (unsigned long long)b.size,
                    b.per_kernel ? "kernel" : "global");
  os << "\n";
  os << strformat("  exit offsets    %zu:", k.exit_offsets.size());
  for (size_t i = 0; i < k.exit_offsets.size() && i < 8; ++i)
    os << strformat(" 0x%x", k.exit_offsets[i]);
  if (k.exit_offsets.size() > 8) os << " ...";
  os << "\n";
}

std::string cubin_text(const std::string& file, const nv::Cubin& cb,
                       const std::vector<const nv::CubinKernel*>& kernels) {
  std::ostringstream os;
  os << strformat("%s: NVIDIA cubin, target sm_%u, e_flags 0x%x; %zu relocation(s)\n", file.c_str(),
                  cb.sm, cb.e_flags, cb.relocations.size());
  os << "  " << cb.kernels.size() << " kernel(s)\n";
  for (const nv::CubinKernel* k : kernels) nv_kernel_text(os, *k);
  return os.str();
}

// --- JSON ---------------------------------------------------------------------------------------

int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }

void amd_kernel_json(llvm::json::OStream& j, const amd::CodeObjectKernel& k) {
  const amd::KernelDescriptor& d = k.descriptor;
  const amd::KernelMetadata& m = k.metadata;
  j.object([&] {
    j.attribute("name", k.name);
    j.attribute("symbol", m.symbol);
    j.attribute("code_address", i64(k.code_va));
    j.attribute("code_bytes", i64(k.code_size));
    j.attribute("descriptor_address", i64(k.descriptor_va));
    j.attribute("wavefront_size", m.wavefront_size);
    j.attribute("max_flat_workgroup_size", m.max_flat_workgroup_size);
    j.attribute("sgprs", m.sgpr_count);
    j.attribute("vgprs", m.vgpr_count);
    j.attribute("agprs", m.agpr_count);
    j.attribute("sgpr_spills", m.sgpr_spill_count);
    j.attribute("vgpr_spills", m.vgpr_spill_count);
    j.attribute("lds_bytes", d.group_segment_fixed_size);
    j.attribute("scratch_bytes", d.private_segment_fixed_size);
    j.attribute("uses_dynamic_stack", m.uses_dynamic_stack);
    j.attribute("kernarg_bytes", d.kernarg_size);
    j.attribute("kernarg_align", m.kernarg_segment_align);
    j.attributeArray("kernargs", [&] {
      for (const amd::KernelArg& a : m.args)
        j.object([&] {
          j.attribute("offset", a.offset);
          j.attribute("size", a.size);
          j.attribute("kind", a.value_kind);
          j.attribute("address_space", a.address_space);
          j.attribute("name", a.name);
          j.attribute("hidden", a.hidden());
        });
    });
    j.attributeObject("descriptor", [&] {
      j.attribute("compute_pgm_rsrc1", strformat("0x%08x", d.compute_pgm_rsrc1));
      j.attribute("compute_pgm_rsrc1_stored", strformat("0x%08x", d.compute_pgm_rsrc1_raw));
      j.attribute("compute_pgm_rsrc2", strformat("0x%08x", d.compute_pgm_rsrc2));
      j.attribute("compute_pgm_rsrc3", strformat("0x%08x", d.compute_pgm_rsrc3));
      j.attribute("kernel_code_properties", strformat("0x%04x", d.kernel_code_properties));
      j.attribute("kernarg_preload_dwords", d.kernarg_preload & 0x7fu);
      j.attribute("granulated_workitem_vgpr_count", d.rsrc1.granulated_workitem_vgpr_count);
      j.attribute("granulated_wavefront_sgpr_count", d.rsrc1.granulated_wavefront_sgpr_count);
      j.attribute("float_denorm_mode_32", d.rsrc1.float_denorm_mode_32);
      j.attribute("float_denorm_mode_16_64", d.rsrc1.float_denorm_mode_16_64);
      j.attribute("ieee_mode", d.rsrc1.ieee_mode);
      j.attribute("dx10_clamp", d.rsrc1.dx10_clamp);
      j.attribute("wgp_mode", d.rsrc1.wgp_mode);
      j.attribute("mem_ordered", d.rsrc1.mem_ordered);
      j.attribute("user_sgpr_count", d.rsrc2.user_sgpr_count);
      j.attribute("enable_private_segment", d.rsrc2.enable_private_segment);
      j.attributeArray("enable_sgpr_workgroup_id", [&] {
        j.value(d.rsrc2.enable_sgpr_workgroup_id_x);
        j.value(d.rsrc2.enable_sgpr_workgroup_id_y);
        j.value(d.rsrc2.enable_sgpr_workgroup_id_z);
      });
      j.attribute("workitem_id_dims", d.rsrc2.enable_vgpr_workitem_id + 1);
      const amd::CodeProperties& p = d.properties;
      j.attribute("private_segment_buffer", p.private_segment_buffer);
      j.attribute("dispatch_ptr", p.dispatch_ptr);
      j.attribute("queue_ptr", p.queue_ptr);
      j.attribute("kernarg_segment_ptr", p.kernarg_segment_ptr);
      j.attribute("dispatch_id", p.dispatch_id);
      j.attribute("flat_scratch_init", p.flat_scratch_init);
      j.attribute("private_segment_size", p.private_segment_size);
      j.attribute("wavefront_size32", p.wavefront_size32);
    });
  });
}

std::string code_object_json(const std::string& file, const amd::CodeObject& co,
                             const std::vector<const amd::CodeObjectKernel*>& kernels) {
  return json_document("inspect", [&](llvm::json::OStream& j) {
    j.attribute("file", file);
    j.attribute("format", "amdgpu_code_object");
    j.attribute("target", co.target);
    j.attribute("target_id", co.target_id);
    j.attribute("code_object_version", co.code_object_version);
    j.attribute("e_flags", strformat("0x%x", co.e_flags));
    j.attributeArray("metadata_version", [&] {
      for (uint32_t v : co.metadata_version) j.value(v);
    });
    j.attribute("image_bytes", i64(co.image.size()));
    j.attribute("image_align", i64(co.image_align));
    j.attributeArray("segments", [&] {
      for (const amd::LoadSegment& s : co.segments)
        j.object([&] {
          j.attribute("vaddr", i64(s.vaddr));
          j.attribute("file_offset", i64(s.file_offset));
          j.attribute("file_bytes", i64(s.file_size));
          j.attribute("memory_bytes", i64(s.mem_size));
          j.attribute("align", i64(s.align));
          j.attribute("flags", segment_flags(s));
        });
    });
    j.attributeArray("kernels", [&] {
      for (const amd::CodeObjectKernel* k : kernels) amd_kernel_json(j, *k);
    });
  });
}

void nv_kernel_json(llvm::json::OStream& j, const nv::CubinKernel& k) {
  j.object([&] {
    j.attribute("name", k.name);
    j.attribute("code_offset", i64(k.code_offset));
    j.attribute("code_bytes", i64(k.code_size));
    j.attribute("code_align", k.code_align);
    j.attribute("registers", k.registers);
    j.attribute("shared_bytes", k.shared_bytes);
    j.attribute("stack_bytes", k.stack_bytes);
    j.attribute("frame_bytes", k.frame_bytes);
    if (k.max_threads[0] == 0 && k.max_threads[1] == 0 && k.max_threads[2] == 0)
      j.attribute("max_threads", nullptr);
    else
      j.attributeArray("max_threads", [&] {
        for (uint32_t t : k.max_threads) j.value(t);
      });
    j.attribute("param_offset", k.param_offset);
    j.attribute("param_bytes", k.param_size);
    j.attributeArray("params", [&] {
      for (const nv::CubinParam& p : k.params)
        j.object([&] {
          j.attribute("ordinal", p.ordinal);
          j.attribute("offset", p.offset);
          j.attribute("size", p.size);
        });
    });
    j.attributeArray("constant_banks", [&] {
      for (const nv::ConstantBank& b : k.banks)
        j.object([&] {
          j.attribute("bank", b.bank);
          j.attribute("bytes", i64(b.size));
          j.attribute("file_offset", i64(b.file_offset));
          j.attribute("per_kernel", b.per_kernel);
        });
    });
    j.attributeArray("exit_offsets", [&] {
      for (uint32_t o : k.exit_offsets) j.value(o);
    });
  });
}

std::string cubin_json(const std::string& file, const nv::Cubin& cb,
                       const std::vector<const nv::CubinKernel*>& kernels) {
  return json_document("inspect", [&](llvm::json::OStream& j) {
    j.attribute("file", file);
    j.attribute("format", "nvidia_cubin");
    j.attribute("target", strformat("sm_%u", cb.sm));
    j.attribute("sm", cb.sm);
    j.attribute("e_flags", strformat("0x%x", cb.e_flags));
    j.attribute("relocations", i64(cb.relocations.size()));
    j.attributeArray("kernels", [&] {
      for (const nv::CubinKernel* k : kernels) nv_kernel_json(j, *k);
    });
  });
}

// --- the command --------------------------------------------------------------------------------

// The kernels to show: all, or the one --kernel names.
template <class K>
Result<std::vector<const K*>> select(const std::vector<K>& all,
                                     const std::optional<std::string>& name,
                                     const std::string& file) {
  std::vector<const K*> out;
  for (const K& k : all)
    if (!name || k.name == *name) out.push_back(&k);
  if (name && out.empty()) {
    std::string names;
    for (size_t i = 0; i < all.size() && i < 10; ++i) names += (i ? ", " : "") + all[i].name;
    if (all.size() > 10) names += ", ...";
    return make_error(Errc::kNotFound, "%s has no kernel named '%s' (it has: %s)", file.c_str(),
                      name->c_str(), names.c_str());
  }
  return out;
}

std::string first_bytes(std::span<const uint8_t> b) {
  std::string s;
  for (size_t i = 0; i < b.size() && i < 4; ++i) s += strformat("%s%02x", i ? " " : "", b[i]);
  return s;
}

Result<std::string> inspect(const std::string& file, bool json,
                            const std::optional<std::string>& kernel) {
  const std::vector<uint8_t> bytes = RG_TRY(read_binary_file(file, kMaxInspectBytes));
  if (bytes.empty()) return make_error(Errc::kParse, "%s is empty", file.c_str());
  static constexpr uint8_t kMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0)
    return std::move(make_error(Errc::kParse, "%s is not an ELF file (it starts with %s)",
                                file.c_str(), first_bytes(bytes).c_str())
                         .with_hint("rawgpu inspect reads AMDGPU code objects (ld.lld -shared "
                                    "output) and NVIDIA cubins (ptxas output)"));
  if (bytes.size() < 20)
    return make_error(Errc::kParse, "%s is truncated: %zu bytes, too short for an ELF header",
                      file.c_str(), bytes.size());
  // e_machine: the same offset in ELF32 and ELF64, in the file's byte order.
  const bool big_endian = bytes[5] == 2;
  const uint16_t machine =
      big_endian ? uint16_t(bytes[18] << 8 | bytes[19]) : uint16_t(bytes[19] << 8 | bytes[18]);
  if (machine == kEmAmdgpu) {
    auto co = amd::parse_code_object(bytes);
    if (!co.ok())
      return std::move(co.error().add_context(strformat("%s (AMDGPU code object)", file.c_str())));
    const auto ks = RG_TRY(select(co->kernels, kernel, file));
    return json ? code_object_json(file, *co, ks) : code_object_text(file, *co, ks);
  }
  if (machine == kEmCuda) {
    auto cb = nv::parse_cubin(bytes);
    if (!cb.ok())
      return std::move(cb.error().add_context(strformat("%s (NVIDIA cubin)", file.c_str())));
    const auto ks = RG_TRY(select(cb->kernels, kernel, file));
    return json ? cubin_json(file, *cb, ks) : cubin_text(file, *cb, ks);
  }
  return std::move(make_error(Errc::kUnsupported,
                              "%s is an ELF file for machine %u, neither EM_AMDGPU (224) nor "
                              "EM_CUDA (190)",
                              file.c_str(), unsigned(machine))
                       .with_hint("rawgpu inspect reads AMDGPU code objects and NVIDIA cubins, "
                                  "not host objects"));
}

}  // namespace

cli::Command inspect_command() {
  cli::Command c;
  c.name = "inspect";
  c.summary = "decode an AMDGPU code object or NVIDIA cubin (kernels, registers, memory, kernargs)";
  c.description =
      "Reads FILE, recognises an AMDGPU code object (ELF machine EM_AMDGPU) or an NVIDIA cubin\n"
      "(EM_CUDA) and decodes it with the loaders' own parsers: per kernel, the registers\n"
      "(SGPR/VGPR or per-thread), LDS / shared memory, scratch / stack, the kernel argument\n"
      "layout (offsets, sizes, kinds), wavefront size or thread limits, and the kernel\n"
      "descriptor or .nv.info fields. Exit code 1 when the file cannot be read or is not a\n"
      "valid code object or cubin (the message says which and where); files over 1 GiB are\n"
      "refused.";
  c.options = {
      {"json", 'j', "", "print JSON instead of text", ""},
      {"kernel", 'k', "NAME", "show only this kernel", ""},
  };
  c.positionals = {{"FILE", "code object (.co, .hsaco) or cubin", true, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    const std::string& file = args.positionals()[0];
    const auto kernel = args.get("kernel");
    auto out = inspect(file, args.flag("json"),
                       kernel && !kernel->empty() ? kernel : std::optional<std::string>());
    if (!out.ok()) {
      io.err << "rawgpu inspect: " << out.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    io.out << *out;
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
