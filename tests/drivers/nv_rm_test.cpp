// The NVIDIA kernel-driver path (drivers/nv Rm + RmGpu) against the simulated driver
// (sim/nv_rm.h) for every branch rawgpu knows, on Ampere, Ada and Hopper: version and layout
// selection, the object tree, CPU VA == GPU VA memory, typed errors, golden ioctl traces.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "golden.h"
#include "rawgpu/autogen/nv/nv_status.h"
#include "rawgpu/autogen/nv/uvm_ioctl.h"
#include "rawgpu/autogen/nv/uvm_ioctl_numbers.h"
#include "rawgpu/drivers/nv/rm.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu {
namespace {

namespace rm = autogen::nv::rm;
using nv::Rm;
using nv::RmGpu;
using sim::NvArch;
using sim::SimNvConfig;
using sim::SimNvKernel;

std::unique_ptr<SimNvKernel> make_sim(SimNvConfig c) {
  auto k = SimNvKernel::create(c);
  EXPECT_TRUE(k.ok()) << k.error().to_string();
  return std::move(k).value();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(NvRmBranch, VersionsSelectTheirLayouts) {
  struct Case {
    const char* text;
    const char* branch;
  } cases[] = {{"535.261.03", "535"},    {"535.113.01", "535"},    {"570.86.15", "570"},
               {"570.195.03", "570"},    {"580.42.01", "580"},     {"580.65.05", "580"},
               {"580.65.06", "580.65+"}, {"580.95.05", "580.65+"}, {"580.126", "580.65+"}};
  for (const Case& c : cases) {
    auto v = nv::parse_driver_version(c.text);
    ASSERT_TRUE(v.ok()) << c.text << ": " << v.error().to_string();
    auto l = nv::branch_layouts(*v);
    ASSERT_TRUE(l.ok()) << c.text;
    EXPECT_STREQ((*l)->name, c.branch) << c.text;
  }
  // The 580.65.06 boundary moves NVOS46's dmaOffset and the VA-space size.
  EXPECT_EQ(rm::kBranch580.nvos46_size, 64u);
  EXPECT_EQ(rm::kBranch580Early.nvos46_size, 56u);
  EXPECT_EQ(rm::kBranch580.vaspace_size, 56u);
  EXPECT_EQ(rm::kBranch535.uvm_map_external_size, 1200u);
}

TEST(NvRmBranch, UnknownBranchesAreRefusedByName) {
  for (const char* t : {"610.10.01", "550.54.14", "590.44.01", "470.256.02"}) {
    auto v = nv::parse_driver_version(t);
    ASSERT_TRUE(v.ok());
    auto l = nv::branch_layouts(*v);
    ASSERT_FALSE(l.ok()) << t;
    EXPECT_EQ(l.error().code(), Errc::kUnsupported);
    EXPECT_NE(l.error().message().find(t), std::string::npos) << l.error().to_string();
  }
  for (const char* bad : {"", "580", "x.1.2", "580.65.06-beta", "580..1"}) {
    EXPECT_EQ(nv::parse_driver_version(bad).error().code(), Errc::kParse) << bad;
  }
}

TEST(NvRmStatus, NamesComeFromTheUpstreamTable) {
  EXPECT_EQ(nv::rm_status_name(0x22), "NV_ERR_INVALID_CLASS (0x22)");
  EXPECT_EQ(nv::rm_status_name(0x3a), "NV_ERR_INVALID_PARAM_STRUCT (0x3a)");
  EXPECT_EQ(nv::rm_status_name(0xabcdef), "unknown NV_STATUS 0xabcdef");
  EXPECT_EQ(nv::rm_error(0x51, "x").code(), Errc::kOutOfMemory);  // NV_ERR_NO_MEMORY
  EXPECT_EQ(nv::rm_error(0x22, "x").code(), Errc::kUnsupported);
}

TEST(NvRmClasses, SelectionIsNewestFirstAndNamesWhatIsMissing) {
  const uint32_t hopper[] = {0xc56f, 0xc86f, 0xcbc0, 0xc8b5, 0xc461, 0xc561, 0xc661};
  auto c = nv::select_classes(hopper);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->gpfifo, 0xc86fu);  // not the Ampere channel the list still names
  EXPECT_EQ(c->compute, 0xcbc0u);
  EXPECT_EQ(c->copy, 0xc8b5u);
  EXPECT_EQ(c->usermode, 0xc661u);
  const uint32_t no_compute[] = {0xc56f, 0xc86f, 0xc8b5, 0xc661};
  auto bad = nv::select_classes(no_compute);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kUnsupported);
  EXPECT_NE(bad.error().message().find("compute"), std::string::npos);
  EXPECT_EQ(nv::sm_version_from_gr(0x900)->target, "sm_90");
  EXPECT_EQ(nv::sm_version_from_gr(0x806)->sass, 0x86);
  EXPECT_EQ(nv::sm_version_from_gr(0xa04).error().code(), Errc::kUnsupported);
}

struct Profile {
  const char* version;
  NvArch arch;
  const char* sm;
  uint32_t gpfifo, compute, copy, usermode;
  const char* golden;
};
std::ostream& operator<<(std::ostream& os, const Profile& p) {
  return os << p.version << "/" << p.sm;
}

class NvRmBringUp : public ::testing::TestWithParam<Profile> {};

TEST_P(NvRmBringUp, BuildsTheObjectTreeAndMapsMemoryAtOneAddress) {
  const Profile& P = GetParam();
  SimNvConfig cfg;
  cfg.version = P.version;
  cfg.arch = P.arch;
  cfg.vram_bytes = 64ull << 20;
  auto k = make_sim(cfg);
  {
    auto r = Rm::open(*k);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ((*r)->version().text, P.version);
    auto g = RmGpu::open(**r, 0);
    ASSERT_TRUE(g.ok()) << g.error().to_string() << "\n" << joined(k->trace());
    RmGpu& gpu = **g;
    EXPECT_EQ(gpu.classes().gpfifo, P.gpfifo);
    EXPECT_EQ(gpu.classes().compute, P.compute);
    EXPECT_EQ(gpu.classes().copy, P.copy);
    EXPECT_EQ(gpu.classes().usermode, P.usermode);
    EXPECT_EQ(gpu.gr().sm.target, P.sm);
    EXPECT_GT(gpu.gr().num_gpcs * gpu.gr().tpc_per_gpc * gpu.gr().sm_per_tpc, 0u);
    EXPECT_TRUE(k->scheduled(gpu.channel_group()));

    // Two channels, each with the ring and USERD the driver asked for and its own token.
    const auto chans = k->channels();
    ASSERT_EQ(chans.size(), 2u);
    for (const auto* mine : {&gpu.compute(), &gpu.copy()}) {
      bool found = false;
      for (const auto& c : chans) {
        if (c.token != mine->token) continue;
        found = true;
        EXPECT_EQ(c.ring_va, mine->ring_va);
        EXPECT_EQ(c.userd_va, mine->userd_va);
        EXPECT_EQ(c.engine_cls, mine->engine_cls);
        EXPECT_EQ(c.cls, P.gpfifo);
      }
      EXPECT_TRUE(found) << "token " << mine->token;
    }
    EXPECT_NE(gpu.compute().token, gpu.copy().token);
    gpu.ring_doorbell(gpu.copy());
    EXPECT_EQ(k->doorbell(0), gpu.copy().token);

    // CPU-visible VRAM: what the CPU writes at va, the GPU reads at va.
    auto m = gpu.alloc_vram(3 * 4096 + 5, true);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    EXPECT_GE(m->va, gpu.low_window().base);
    EXPECT_LE(m->va + m->size, gpu.low_window().base + gpu.low_window().size);
    EXPECT_LT(m->va + m->size, 1ull << 40);
    std::memcpy(m->cpu() + 100, "rawgpu", 6);
    auto seen = k->translate(m->va + 100, 6);
    ASSERT_TRUE(seen.ok()) << seen.error().to_string();
    EXPECT_EQ(std::memcmp(*seen, "rawgpu", 6), 0);
    // ... and the other way round.
    (*seen)[0] = 'R';
    EXPECT_EQ(m->cpu()[100], 'R');

    // Host pages handed to the GPU.
    auto h = gpu.alloc_host(8192);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    h->cpu()[4097] = 0x5a;
    auto hs = k->translate(h->va + 4097, 1);
    ASSERT_TRUE(hs.ok());
    EXPECT_EQ(**hs, 0x5a);

    // GPU-only VRAM lives above the low window.
    auto d = gpu.alloc_vram(16ull << 20, false);
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    EXPECT_GE(d->va, gpu.high_window().base);
    EXPECT_EQ(d->va % (2ull << 20), 0u);  // 2 MiB pages from 8 MiB on
    ASSERT_TRUE(k->translate(d->va + (16ull << 20) - 8, 8).ok());

    // Freeing unmaps for the GPU (an access now faults) and gives the VA back.
    const uint64_t va = m->va;
    const uint64_t used = k->vram_used(0);
    ASSERT_TRUE(gpu.free(*m).ok());
    EXPECT_EQ(k->translate(va + 100, 6).error().code(), Errc::kOutOfRange);
    EXPECT_LT(k->vram_used(0), used);
    auto again = gpu.alloc_vram(4096, true);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->va, va);
    ASSERT_TRUE(gpu.free(*again).ok());
    ASSERT_TRUE(gpu.free(*h).ok());
    ASSERT_TRUE(gpu.free(*d).ok());
  }
  // Everything the driver made is gone, in the simulated RM too.
  EXPECT_EQ(k->live_objects(), 0u);
  EXPECT_EQ(k->open_fds(), 0u);
  EXPECT_EQ(k->vram_used(0), 0u);
}

TEST_P(NvRmBringUp, IoctlSequenceMatchesTheGoldenTrace) {
  const Profile& P = GetParam();
  SimNvConfig cfg;
  cfg.version = P.version;
  cfg.arch = P.arch;
  auto k = make_sim(cfg);
  auto r = Rm::open(*k);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto g = RmGpu::open(**r, 0);
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_TRUE(testing::matches_golden(P.golden, joined(k->trace())));
}

INSTANTIATE_TEST_SUITE_P(
    Branches, NvRmBringUp,
    ::testing::Values(Profile{"535.261.03", NvArch::kAmpere, "sm_86", 0xc56f, 0xc7c0, 0xc7b5,
                              0xc561, "nv_rm_535_ga102.trace"},
                      Profile{"570.86.15", NvArch::kAda, "sm_89", 0xc56f, 0xc9c0, 0xc7b5, 0xc561,
                              "nv_rm_570_ad102.trace"},
                      Profile{"580.42.01", NvArch::kHopper, "sm_90", 0xc86f, 0xcbc0, 0xc8b5, 0xc661,
                              "nv_rm_580early_gh100.trace"},
                      Profile{"580.65.06", NvArch::kHopper, "sm_90", 0xc86f, 0xcbc0, 0xc8b5, 0xc661,
                              "nv_rm_580_gh100.trace"}),
    [](const auto& info) {
      std::string n = std::string(info.param.version) + "_" + info.param.sm;
      for (char& c : n) {
        if (c == '.') c = '_';
      }
      return n;
    });

TEST(NvRmErrors, AWrongBranchLayoutFailsLoudlyWhereTheDriverChecksSizes) {
  // A 580.65.06 driver and a client that insists on the 535 layouts: the size-checked NVOS46
  // (56 bytes where the driver expects 64) is refused at the first GPU mapping.
  auto k = make_sim({});
  nv::RmOptions o;
  o.force_layouts = &rm::kBranch535;
  auto r = Rm::open(*k, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto g = RmGpu::open(**r, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code(), Errc::kIo);
  EXPECT_NE(g.error().to_string().find("NV_ESC_RM_MAP_MEMORY_DMA"), std::string::npos)
      << g.error().to_string();
  // The other way: 580 layouts against a 535 driver, which has no WAIT_OPEN_COMPLETE.
  SimNvConfig old;
  old.version = "535.261.03";
  old.arch = NvArch::kAmpere;
  auto k2 = make_sim(old);
  o.force_layouts = &rm::kBranch580;
  auto r2 = Rm::open(*k2, o);
  ASSERT_TRUE(r2.ok());
  auto g2 = RmGpu::open(**r2, 0);
  ASSERT_FALSE(g2.ok());
  EXPECT_NE(g2.error().to_string().find("WAIT_OPEN_COMPLETE"), std::string::npos)
      << g2.error().to_string();
}

TEST(NvRmErrors, AnUnknownDriverBranchIsRefusedBeforeAnyObjectIsMade) {
  SimNvConfig c;
  c.version = "610.10.01";
  c.layouts = &rm::kBranch580;
  auto k = make_sim(c);
  auto r = Rm::open(*k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kUnsupported);
  EXPECT_NE(r.error().message().find("610.10.01"), std::string::npos);
  // Only the root client was allocated (to ask the version), and it is gone again.
  EXPECT_EQ(k->live_objects(), 0u);
  EXPECT_EQ(k->open_fds(), 0u);
}

TEST(NvRmErrors, RmStatusFailuresAreTypedAndDecoded) {
  auto k = make_sim({});
  auto r = Rm::open(*k);
  ASSERT_TRUE(r.ok());
  auto g = RmGpu::open(**r, 0);
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  // A class the GPU does not have.
  auto bad = (*r)->alloc((*g)->device(), 0xc7c0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kUnsupported);
  EXPECT_NE(bad.error().message().find("NV_ERR_INVALID_CLASS"), std::string::npos);
  // A control with the wrong size.
  uint8_t buf[20] = {};
  auto s = (*r)->control((*g)->subdevice(), rm::NV2080_CTRL_CMD_GR_GET_INFO, buf, sizeof(buf));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(s.error().message().find("NV_ERR_INVALID_PARAM_STRUCT"), std::string::npos);
  // A second device object for the same GPU.
  rm::NV0080_ALLOC_PARAMETERS dev{};
  dev.hClientShare = (*r)->root();
  auto dup = (*r)->alloc_with((*r)->root(), rm::NV01_DEVICE_0, dev);
  EXPECT_EQ(dup.error().code(), Errc::kBusy) << dup.error().to_string();
  // More VRAM than the GPU has: typed, and nothing leaks (the next allocation reuses the VA).
  auto big = (*g)->alloc_vram(2ull << 30, true);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), Errc::kOutOfMemory) << big.error().to_string();
  auto a = (*g)->alloc_vram(4096, true);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*g)->free(*a).ok());
  // A GPU that is not there.
  auto none = RmGpu::open(**r, 3);
  EXPECT_EQ(none.error().code(), Errc::kNotFound);
}

TEST(NvRmSim, HostileDeviceNodesAreRefusedNotThrown) {
  auto k = make_sim({});
  EXPECT_EQ(k->open("/dev/nvidia99999999999999999999", 0), -ENXIO);
  EXPECT_EQ(k->open("/dev/nvidia7", 0), -ENXIO);
  EXPECT_EQ(k->open("/dev/nvidiafoo", 0), -ENOENT);
  EXPECT_EQ(k->ioctl(12345, 0, nullptr), -EBADF);
}

TEST(NvRmErrors, NoKernelDriverIsReportedAsSuch) {
  auto k = make_sim({});
  nv::RmOptions o;
  o.ctl_path = "/dev/nvidiactl-absent";
  auto r = Rm::open(*k, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotFound);
  EXPECT_NE(r.error().hint().find("nvidia.ko"), std::string::npos);
}

TEST(NvRmHost, TheRealKernelAnswersToo) {
  // On this machine: either there is no NVIDIA driver (a typed kNotFound) or there is one, in
  // which case only opening the client is tried here (the device check script does the rest).
  auto r = Rm::open(nv::Kernel::os());
  if (r.ok()) {
    GTEST_SKIP() << "an NVIDIA driver " << (*r)->version().text
                 << " is present: covered by scripts/device/nv_check.sh";
  }
  EXPECT_TRUE(r.error().code() == Errc::kNotFound || r.error().code() == Errc::kPermission ||
              r.error().code() == Errc::kUnsupported)
      << r.error().to_string();
}

}  // namespace
}  // namespace rawgpu

namespace rawgpu {
namespace {

// The simulated driver refuses what the real one refuses, so a driver that skips a step fails.
TEST(NvRmSim, RefusesWhatTheDriverRefuses) {
  auto k = sim::SimNvKernel::create({}).value();
  auto r = nv::Rm::open(*k).value();
  // A device object before /dev/nvidia0 was opened and registered.
  autogen::nv::rm::NV0080_ALLOC_PARAMETERS dev{};
  dev.hClientShare = r->root();
  auto d = r->alloc_with(r->root(), autogen::nv::rm::NV01_DEVICE_0, dev);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message().find("NV_ERR_INVALID_DEVICE"), std::string::npos);
  // Overlapping UVM ranges.
  autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS a{0x10'0000'0000, 0x4000, 0};
  ASSERT_TRUE(r->uvm(autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE, &a,
                     offsetof(autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS, rmStatus), "a")
                  .ok());
  autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS b{0x10'0000'2000, 0x4000, 0};
  auto s = r->uvm(autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE, &b,
                  offsetof(autogen::nv::uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS, rmStatus), "b");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("NV_ERR_UVM_ADDRESS_IN_USE"), std::string::npos);
  // A frontend escape whose size is not the driver's.
  uint8_t junk[24] = {};
  auto f = r->frontend(r->ctl_fd(), autogen::nv::rm::NV_ESC_RM_FREE, junk, sizeof(junk), "free");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("errno 22"), std::string::npos) << f.error().to_string();
}

}  // namespace
}  // namespace rawgpu
