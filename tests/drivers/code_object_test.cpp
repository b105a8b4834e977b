// AMDGPU code object parser on real code objects: LLVM IR compiled in the test with llc-19 and
// linked with ld.lld-19 -shared (SKIPPED when those tools are absent), then checked field by
// field, mutated (descriptor/note disagreements must be caught) and truncated/corrupted (typed
// errors, never a crash).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "rawgpu/base/process.h"
#include "rawgpu/drivers/amd/code_object.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::amd;
namespace fs = std::filesystem;

// One kernel with an LDS array and a workgroup barrier, attributes as rawgpu's back end sets
// them (no implicit arguments), and one that reads the dispatch packet (so the dispatch pointer
// user SGPRs are enabled).
constexpr const char* kIr = R"(
@lds = internal addrspace(3) global [64 x float] undef, align 4
define amdgpu_kernel void @add(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %i0 = mul i32 %gid, 64
  %i = add i32 %i0, %tid
  %p = getelementptr float, ptr addrspace(1) %b, i32 %i
  %v = load float, ptr addrspace(1) %p
  %l = getelementptr float, ptr addrspace(3) @lds, i32 %tid
  store float %v, ptr addrspace(3) %l
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %x = xor i32 %tid, 1
  %l2 = getelementptr float, ptr addrspace(3) @lds, i32 %x
  %w = load float, ptr addrspace(3) %l2
  %q = getelementptr float, ptr addrspace(1) %a, i32 %i
  store float %w, ptr addrspace(1) %q
  ret void
}
define amdgpu_kernel void @grid(ptr addrspace(1) noalias %out) #1 {
  %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %gp = getelementptr i8, ptr addrspace(4) %d, i64 12
  %g = load i32, ptr addrspace(4) %gp
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %gy = call i32 @llvm.amdgcn.workgroup.id.y()
  %s0 = add i32 %tx, %ty
  %s = add i32 %s0, %gy
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %s
  store i32 %g, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
declare void @llvm.amdgcn.s.barrier()
attributes #0 = { "amdgpu-flat-work-group-size"="1,64" "amdgpu-no-implicitarg-ptr" "amdgpu-no-dispatch-ptr" "amdgpu-no-queue-ptr" "amdgpu-no-dispatch-id" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-hostcall-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-lds-kernel-id" }
attributes #1 = { "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-implicitarg-ptr" "amdgpu-no-queue-ptr" "amdgpu-no-dispatch-id" "amdgpu-no-workitem-id-z" "amdgpu-no-workgroup-id-z" "amdgpu-no-hostcall-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-lds-kernel-id" }
)";

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Builds (once per target, per process) the code object for kIr; empty if llc/lld are absent.
const std::vector<uint8_t>& code_object_for(const std::string& gfx, std::string* why) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  if (auto it = cache.find(gfx); it != cache.end()) return it->second;
  auto& out = cache[gfx];
  const auto llc = find_executable("llc-19", {"/usr/lib/llvm-19/bin"});
  const auto lld = find_executable("ld.lld-19", {"/usr/lib/llvm-19/bin"});
  if (!llc || !lld) {
    *why = "llc-19 or ld.lld-19 not installed";
    return out;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("rawgpu_code_object_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path ll = dir / "k.ll", obj = dir / (gfx + ".o"), co = dir / (gfx + ".co");
  std::ofstream(ll) << kIr;
  auto r = run_command({*llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + gfx, "-filetype=obj",
                        ll.string(), "-o", obj.string()});
  if (!r.ok() || r->exit_code != 0) {
    *why = "llc-19 failed: " + (r.ok() ? r->output : r.error().to_string());
    return out;
  }
  r = run_command({*lld, "-shared", obj.string(), "-o", co.string()});
  if (!r.ok() || r->exit_code != 0) {
    *why = "ld.lld-19 failed: " + (r.ok() ? r->output : r.error().to_string());
    return out;
  }
  out = read_file(co);
  fs::remove_all(dir);
  return out;
}

class CodeObjectTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(CodeObjectTarget, DecodesDescriptorAndMetadata) {
  const std::string gfx = GetParam();
  std::string why;
  const auto& bytes = code_object_for(gfx, &why);
  if (bytes.empty()) {
    if (why.find("not installed") != std::string::npos) GTEST_SKIP() << why;
    FAIL() << why;
  }
  auto co = parse_code_object(bytes);
  ASSERT_TRUE(co.ok()) << co.error().to_string();
  const bool rdna = gfx != "gfx942";
  EXPECT_EQ(co->target, gfx);
  EXPECT_EQ(co->target_id.rfind("amdgcn-amd-amdhsa--" + gfx, 0), 0u) << co->target_id;
  EXPECT_EQ(co->code_object_version, 5u);
  EXPECT_EQ(co->gfx_major, gfx == "gfx942" ? 9u : gfx.starts_with("gfx11") ? 11u : 12u);
  ASSERT_EQ(co->kernels.size(), 2u);
  ASSERT_FALSE(co->segments.empty());
  bool has_exec = false;
  for (const auto& s : co->segments) has_exec |= s.executable;
  EXPECT_TRUE(has_exec);

  const CodeObjectKernel* add = co->find("add");
  ASSERT_NE(add, nullptr);
  const auto& d = add->descriptor;
  EXPECT_EQ(d.kernarg_size, 20u);  // two pointers and an i32: no hidden arguments
  EXPECT_EQ(add->metadata.kernarg_segment_size, 20u);
  EXPECT_EQ(d.group_segment_fixed_size, 256u);  // 64 floats of LDS
  EXPECT_EQ(d.private_segment_fixed_size, 0u);
  EXPECT_EQ(add->metadata.args.size(), 3u);
  for (const auto& a : add->metadata.args) EXPECT_FALSE(a.hidden()) << a.value_kind;
  EXPECT_EQ(add->metadata.args[2].offset, 16u);
  EXPECT_EQ(add->metadata.max_flat_workgroup_size, 64u);
  EXPECT_EQ(d.properties.wavefront_size32, rdna);
  EXPECT_EQ(add->metadata.wavefront_size, rdna ? 32u : 64u);
  EXPECT_TRUE(d.properties.kernarg_segment_ptr);
  EXPECT_FALSE(d.properties.dispatch_ptr);
  EXPECT_FALSE(d.properties.queue_ptr);
  EXPECT_TRUE(d.rsrc2.enable_sgpr_workgroup_id_x);
  EXPECT_FALSE(d.rsrc2.enable_sgpr_workgroup_id_y);
  EXPECT_FALSE(d.rsrc2.enable_sgpr_workgroup_id_z);
  EXPECT_EQ(d.rsrc2.enable_vgpr_workitem_id, 0u);
  EXPECT_GE(d.rsrc2.user_sgpr_count, d.properties.user_sgprs());
  EXPECT_EQ(d.rsrc2.granulated_lds_size, 0u);  // left to the dispatcher
  if (gfx == "gfx1100") {
    EXPECT_EQ(d.rsrc2.user_sgpr_count, 15u);  // user-sgpr-init16-bug pad
  }
  if (rdna) {
    EXPECT_TRUE(d.rsrc1.wgp_mode);  // LLVM's default for gfx10+ without +cumode
    EXPECT_TRUE(d.rsrc1.mem_ordered);
    // LLVM 19.1.7 sets the reserved GRANULATED_WAVEFRONT_SGPR_COUNT on gfx10+; the parser
    // clears it in the word to dispatch and says so.
    EXPECT_EQ(d.compute_pgm_rsrc1 & 0x3c0u, 0u);
    EXPECT_EQ(d.rsrc1_reserved_bits_cleared, (d.compute_pgm_rsrc1_raw & 0x3c0u) != 0);
    EXPECT_EQ(d.compute_pgm_rsrc1 | (d.compute_pgm_rsrc1_raw & 0x3c0u), d.compute_pgm_rsrc1_raw);
  } else {
    EXPECT_EQ(d.compute_pgm_rsrc1, d.compute_pgm_rsrc1_raw);
    EXPECT_GE((d.rsrc1.granulated_wavefront_sgpr_count + 1) * 8, add->metadata.sgpr_count);
  }
  // The descriptor bytes in the image are the ones decoded.
  ASSERT_LE(add->descriptor_va + 64, co->image.size());
  uint32_t kernarg_in_image;
  std::memcpy(&kernarg_in_image, co->image.data() + add->descriptor_va + 8, 4);
  EXPECT_EQ(kernarg_in_image, 20u);
  EXPECT_EQ(add->code_va % 256, 0u);
  EXPECT_EQ(add->code_va, add->descriptor_va + uint64_t(d.kernel_code_entry_byte_offset));
  EXPECT_GT(add->code_size, 8u);
  // s_endpgm (0xbfb00000 on gfx11/12, 0xbf810000 on gfx9) appears in the kernel's code.
  const uint32_t endpgm = rdna ? 0xbfb00000u : 0xbf810000u;
  bool found = false;
  for (uint64_t off = 0; off + 4 <= add->code_size; off += 4) {
    uint32_t w;
    std::memcpy(&w, co->image.data() + add->code_va + off, 4);
    found |= w == endpgm;
  }
  EXPECT_TRUE(found) << "no s_endpgm in " << add->name;

  const CodeObjectKernel* grid = co->find("grid");
  ASSERT_NE(grid, nullptr);
  const auto& g = grid->descriptor;
  EXPECT_TRUE(g.properties.dispatch_ptr);
  EXPECT_TRUE(g.properties.kernarg_segment_ptr);
  EXPECT_GE(g.rsrc2.user_sgpr_count, 4u);
  EXPECT_TRUE(g.rsrc2.enable_sgpr_workgroup_id_y);
  EXPECT_EQ(g.rsrc2.enable_vgpr_workitem_id, 1u);  // x and y
  EXPECT_EQ(g.kernarg_size, 8u);
  EXPECT_EQ(g.group_segment_fixed_size, 0u);
  EXPECT_NE(grid->code_va, add->code_va);
  EXPECT_NE(describe(*grid).find("dispatch_ptr 1"), std::string::npos) << describe(*grid);
}

INSTANTIATE_TEST_SUITE_P(Targets, CodeObjectTarget,
                         ::testing::Values("gfx1100", "gfx1200", "gfx1201", "gfx942"));

// File offset of an image address (through the PT_LOAD segments).
size_t file_offset(const CodeObject& co, uint64_t va) {
  for (const auto& s : co.segments)
    if (va >= s.vaddr && va < s.vaddr + s.file_size) return size_t(s.file_offset + (va - s.vaddr));
  ADD_FAILURE() << "va not in a segment";
  return 0;
}

class CodeObjectCorrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    bytes_ = code_object_for("gfx1100", &why);
    if (bytes_.empty()) {
      if (why.find("not installed") != std::string::npos) GTEST_SKIP() << why;
      FAIL() << why;
    }
    auto co = parse_code_object(bytes_);
    ASSERT_TRUE(co.ok()) << co.error().to_string();
    co_ = std::move(*co);
  }
  std::vector<uint8_t> bytes_;
  CodeObject co_;
};

TEST_F(CodeObjectCorrupt, DescriptorNoteMismatchIsCaught) {
  const CodeObjectKernel* add = co_.find("add");
  ASSERT_NE(add, nullptr);
  auto b = bytes_;
  b[file_offset(co_, add->descriptor_va) + 8] = 24;  // kernarg size 20 -> 24
  auto r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
  EXPECT_NE(r.error().to_string().find("kernarg size is 24 in the descriptor but 20"),
            std::string::npos)
      << r.error().to_string();

  b = bytes_;
  b[file_offset(co_, add->descriptor_va) + 1] ^= 0x02;  // LDS 256 -> 768
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("group segment size"), std::string::npos);

  b = bytes_;
  b[file_offset(co_, add->descriptor_va) + 57] &= ~0x04;  // clear wave32
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("wavefront size is 64"), std::string::npos);

  b = bytes_;
  b[file_offset(co_, add->descriptor_va) + 16] += 4;  // entry no longer 256-aligned
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
}

TEST_F(CodeObjectCorrupt, HeaderChecksAreTyped) {
  auto b = bytes_;
  b[18] = 62;  // e_machine = x86-64
  b[19] = 0;
  auto r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kUnsupported)) << r.error().to_string();

  b = bytes_;
  b[8] = 2;  // ABI version: code object v4
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kUnsupported));
  EXPECT_NE(r.error().to_string().find("ABI version 2"), std::string::npos);

  b = bytes_;
  b[16] = 1;  // e_type = ET_REL
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kUnsupported));
  EXPECT_FALSE(r.error().hint().empty());

  b = bytes_;
  b[0] = 0;
  r = parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
  EXPECT_FALSE(parse_code_object({}).ok());
}

TEST_F(CodeObjectCorrupt, EveryTruncationFailsCleanly) {
  // Every prefix that cuts into a loaded segment, the section headers or the note must fail with
  // a typed error. (Prefixes never succeed: the section header table is at the end of the file.)
  for (size_t n = 0; n < bytes_.size(); n += (n < 128 ? 1 : 13)) {
    auto r = parse_code_object(std::span(bytes_.data(), n));
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
    EXPECT_TRUE(r.error().is(Errc::kParse) || r.error().is(Errc::kUnsupported) ||
                r.error().is(Errc::kOutOfRange))
        << r.error().to_string();
  }
}

TEST_F(CodeObjectCorrupt, ByteFlipsNeverCrash) {
  // Flip each byte of the file (stride 3 beyond the headers): the parser either accepts the
  // object (the byte did not matter, e.g. inside the code) or returns a typed error.
  size_t accepted = 0, rejected = 0;
  for (size_t i = 0; i < bytes_.size(); i += (i < 512 ? 1 : 3)) {
    auto b = bytes_;
    b[i] ^= 0xff;
    auto r = parse_code_object(b);
    if (r.ok()) {
      ++accepted;
      ASSERT_EQ(r->kernels.size(), 2u);
    } else {
      ++rejected;
      EXPECT_FALSE(r.error().message().empty());
    }
  }
  EXPECT_GT(rejected, 50u);
  EXPECT_GT(accepted, 50u);
}

TEST(CodeObjectDecode, FieldsFromKnownWords) {
  // gfx1100 rsrc1 as LLVM 19.1.7 writes it for the 'add' kernel, reserved bits included.
  const PgmRsrc1 r1 = decode_rsrc1(0x60af0080, 11);
  EXPECT_EQ(r1.granulated_workitem_vgpr_count, 0u);
  EXPECT_EQ(r1.granulated_wavefront_sgpr_count, 2u);
  EXPECT_EQ(r1.float_denorm_mode_32, 3u);
  EXPECT_EQ(r1.float_denorm_mode_16_64, 3u);
  EXPECT_TRUE(r1.dx10_clamp);
  EXPECT_TRUE(r1.ieee_mode);
  EXPECT_TRUE(r1.wgp_mode);
  EXPECT_TRUE(r1.mem_ordered);
  EXPECT_FALSE(r1.fwd_progress);
  // The same bits mean something else on gfx12.
  const PgmRsrc1 r12 = decode_rsrc1(0x60af0080, 12);
  EXPECT_TRUE(r12.wg_rr_en);
  EXPECT_TRUE(r12.disable_perf);
  EXPECT_FALSE(r12.dx10_clamp);

  const PgmRsrc2 r2 = decode_rsrc2(0x9e, 11);  // 15 user SGPRs, workgroup id x
  EXPECT_EQ(r2.user_sgpr_count, 15u);
  EXPECT_TRUE(r2.enable_sgpr_workgroup_id_x);
  EXPECT_FALSE(r2.enable_private_segment);
  EXPECT_EQ(decode_rsrc2(0xff << 15, 11).granulated_lds_size, 0xffu);
  EXPECT_EQ(decode_rsrc2(0x7fu << 24, 11).exception_mask, 0x7fu);

  const PgmRsrc3 r3 = decode_rsrc3((1u << 16) | 5u, 9, true);
  EXPECT_EQ(r3.accum_offset, 5u);
  EXPECT_TRUE(r3.tg_split);
  EXPECT_EQ(decode_rsrc3(0x3f0, 12, false).inst_pref_size, 0x3fu);

  const CodeProperties p = decode_code_properties(0x040b);  // psb, dispatch, kernarg, wave32
  EXPECT_TRUE(p.private_segment_buffer);
  EXPECT_TRUE(p.dispatch_ptr);
  EXPECT_TRUE(p.kernarg_segment_ptr);
  EXPECT_TRUE(p.wavefront_size32);
  EXPECT_FALSE(p.queue_ptr);
  EXPECT_EQ(p.user_sgprs(), 8u);
}

}  // namespace
